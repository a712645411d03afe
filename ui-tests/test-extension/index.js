/**
 * A tool from another extension: "count_words" counts the words of a text.
 * It asks for approval like code does (kind "run"), with its own card title.
 */
const { INotebookAgent } = require('jupyterlab-notebook-agent');

module.exports = {
  id: 'notebook-agent-test-tool:plugin',
  description: 'Adds a count_words tool to Notebook Agent (UI tests).',
  autoStart: true,
  requires: [INotebookAgent],
  activate: (app, agent) => {
    agent.registerTool({
      name: 'count_words',
      description: 'Count the words of a text.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text']
      },
      kind: 'run',
      title: 'Count the words of this text',
      execute: ({ text }) =>
        `The text has ${text.trim().split(/\s+/).length} words (counted by notebook-agent-test-tool).`
    });
  }
};
