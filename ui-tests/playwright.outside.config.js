/**
 * The outside agents' UI tests alone (outside-*.spec.ts, #36): the scripted
 * model and the configured server of playwright.config.js, nothing else.
 * The full suite runs outside-agent.spec.ts too, on its configured server;
 * outside-opencode.spec.ts (a real agent CLI) runs only here, when
 * NOTEBOOK_AGENT_OPENCODE is set.
 */
const config = require('./playwright.config');

const OFFSET = Number(process.env.UI_PORT_OFFSET ?? 0);

module.exports = {
  ...config,
  projects: [
    {
      name: 'outside',
      // UI_OUTSIDE_MATCH: other specs of the configured server, to check them beside these.
      testMatch: process.env.UI_OUTSIDE_MATCH
        ? new RegExp(process.env.UI_OUTSIDE_MATCH)
        : process.env.NOTEBOOK_AGENT_OPENCODE
          ? /outside-.*\.spec\.ts$/
          : /outside-agent\.spec\.ts$/,
      use: { baseURL: `http://localhost:${8888 + OFFSET}` }
    }
  ],
  webServer: config.webServer.slice(0, 2)
};
