import { PROMPT_VERSION, systemPrompt } from '../context/system-prompt';

describe('systemPrompt', () => {
  it('names the notebook, asks for a plan first, and lists the tools it was given', () => {
    const text = systemPrompt({
      notebookPath: 'work/sales.ipynb',
      toolNames: ['read_notebook', 'run_cell']
    });
    expect(text).toContain('"work/sales.ipynb"');
    expect(text).toMatch(
      /1\. Plan briefly first: reply with a short numbered plan/
    );
    expect(text).toContain('Tools available: read_notebook, run_cell.');
    expect(text).toContain('Never delete or overwrite the user’s cells');
    expect(text).toContain('cites the values the cells showed');
    expect(PROMPT_VERSION).toBeGreaterThanOrEqual(3);
    expect(text).toContain('call update_plan');
  });

  it('asks models without parallel tool calls for one call per turn', () => {
    const options = { notebookPath: 'a.ipynb', toolNames: ['run_cell'] };
    expect(systemPrompt(options)).not.toContain('one tool per turn');
    expect(systemPrompt({ ...options, oneToolPerTurn: true })).toContain(
      'Call one tool per turn, then wait for its result.'
    );
  });

  it('is deterministic (a stable prefix for prompt caching) and omits the tool line without tools', () => {
    const a = systemPrompt({ notebookPath: 'a.ipynb' });
    expect(systemPrompt({ notebookPath: 'a.ipynb' })).toBe(a);
    expect(a).not.toContain('Tools available');
  });
});
