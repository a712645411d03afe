/**
 * The outside agents' UI tests alone (outside-*.spec.ts, #36): the scripted
 * model and the configured server of playwright.config.js, nothing else.
 * The full suite runs these specs too, on its configured server.
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
        : /outside-.*\.spec\.ts$/,
      use: { baseURL: `http://localhost:${8888 + OFFSET}` }
    }
  ],
  webServer: config.webServer.slice(0, 2)
};
