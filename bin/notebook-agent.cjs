#!/usr/bin/env node
// `notebook-agent`: runs the TypeScript sources of src/headless through tsx,
// so the command line and the browser build share one codebase without a
// second compile step.
require('tsx/cjs');

// @jupyterlab/services logs its own chatter (websocket starts, the 404 of an
// existence check) through console; the command line reports through
// stdout/stderr itself. NOTEBOOK_AGENT_DEBUG=1 shows the libraries' logs.
if (!process.env.NOTEBOOK_AGENT_DEBUG) {
  for (const level of ['debug', 'log', 'info', 'warn', 'error']) {
    console[level] = () => undefined;
  }
}
const { main } = require('../src/headless/cli.ts');

main(process.argv.slice(2)).then(
  code => process.exit(code),
  error => {
    process.stderr.write(`notebook-agent: ${error?.stack ?? error}\n`);
    process.exit(1);
  }
);
