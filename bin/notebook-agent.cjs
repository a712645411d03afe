#!/usr/bin/env node
// `notebook-agent`: loads the command line compiled from src/headless
// (lib/cli/notebook-agent.cjs, built by `npm run build:cli`, which `npm ci`,
// `npm pack` and `npm run build` run), so no TypeScript compiler runs here.

// @jupyterlab/services logs its own chatter (websocket starts, the 404 of an
// existence check) through console; the command line reports through
// stdout/stderr itself. NOTEBOOK_AGENT_DEBUG=1 shows the libraries' logs,
// and stack traces point into src/ through the source map.
if (process.env.NOTEBOOK_AGENT_DEBUG) {
  process.setSourceMapsEnabled(true);
} else {
  for (const level of ['debug', 'log', 'info', 'warn', 'error']) {
    console[level] = () => undefined;
  }
}

// `npm run cli -- …` runs in the package's folder; the paths the user typed
// are relative to the folder they typed them in, which npm passes on.
if (
  process.env.npm_lifecycle_event === 'cli' &&
  process.env.npm_package_name === 'jupyterlab-notebook-agent' &&
  process.env.INIT_CWD
) {
  process.chdir(process.env.INIT_CWD);
}

let cli;
try {
  cli = require('../lib/cli/notebook-agent.cjs');
} catch (error) {
  if (
    error?.code !== 'MODULE_NOT_FOUND' ||
    !/notebook-agent\.cjs/.test(error.message)
  ) {
    throw error;
  }
  process.stderr.write(
    'notebook-agent: the command line is not built in this checkout: run `npm run build:cli` (`npm ci` runs it).\n'
  );
  process.exit(1);
}

// Ctrl-C quits through process.exit, so the private Jupyter server and its
// kernels are stopped (src/headless/cli/cli-signals.ts).
cli.installSignalHandlers(line => process.stderr.write(`${line}\n`));

cli.main(process.argv.slice(2)).then(
  code => process.exit(code),
  error => {
    process.stderr.write(`notebook-agent: ${error?.stack ?? error}\n`);
    process.exit(1);
  }
);
