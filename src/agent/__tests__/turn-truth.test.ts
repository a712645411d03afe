/**
 * After a workflow's turn the transcript shows neither the model's echo of
 * the internal prompt nor an unbacked claim that the notebook changed.
 */
import { AgentSession } from '../session';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import {
  claimsChange,
  NO_CHANGE_NOTICE,
  withoutEcho
} from '../context/turn-truth';
import { MiniKernelNotebook } from './mini-kernel';

describe('the echo of an internal prompt', () => {
  it('drops the answer’s lines copied from the prompt, whatever their spacing or case', () => {
    const prompt =
      'Fix the notebook so it runs top to bottom in a fresh kernel.\nIt will be verified again.';
    expect(
      withoutEcho(
        'fix the notebook so it runs  top to bottom in a fresh kernel.\n\nI renamed totl to total.',
        prompt
      )
    ).toBe('I renamed totl to total.');
    // Short lines are common phrases, not an echo.
    expect(withoutEcho('It will be verified again.', prompt)).toBe(
      'It will be verified again.'
    );
  });
});

describe('a claim that the notebook changed', () => {
  it('is told from other sentences', () => {
    expect(claimsChange('The notebook is fixed.')).toBe(true);
    expect(claimsChange('I have corrected the cell.')).toBe(true);
    expect(claimsChange('The cell has been updated to use total.')).toBe(true);
    expect(claimsChange('The error comes from a misspelt name.')).toBe(false);
    expect(claimsChange('I could not find a fix.')).toBe(false);
  });
});

describe('a workflow turn’s answer in the transcript', () => {
  it('Generate: a repair answered “The notebook is fixed” with no change gets a notice, and the echoed prompt leaves the transcript', async () => {
    const notebook = new MiniKernelNotebook({ path: 'n.ipynb' });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'insert_cell', arguments: { source: 'print(totl)' } }
        ]
      },
      { text: 'Done.' },
      // The repair: words only, the prompt's line copied, no change.
      {
        text:
          'Fix the notebook so it runs top to bottom in a fresh kernel: edit the cells concerned in ' +
          'place with edit_cell (or insert a missing step where it belongs), run them, then answer ' +
          'in one sentence. It will be verified again.\nThe notebook is fixed.'
      }
    ]);
    const s = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything'
    });
    const result = await s.generate(
      'Print the total',
      { model: () => model, notebook },
      {}
    );
    expect(result?.status).toBe('unverified');
    const items = s.getSnapshot().items;
    const answers = items.filter(i => i.kind === 'assistant');
    expect(answers.at(-1)).toMatchObject({ text: 'The notebook is fixed.' });
    expect(JSON.stringify(items)).not.toContain('Fix the notebook so it runs');
    expect(items).toContainEqual(
      expect.objectContaining({ kind: 'notice', text: NO_CHANGE_NOTICE })
    );
  });
});
