import { agentTools } from '../tools/all-tools';
import {
  smallModelSystemPrompt,
  WORKED_EXAMPLE_MIN_B
} from '../context/small-model-prompt';
import { statedBillions } from '../model/capabilities';
import { prepareRun } from '../session/run-setup';
import { ScriptedModel } from '../testing/scripted-model';
import { ToolRegistry } from '../tools/registry';
import { systemPrompt } from '../context/system-prompt';
import {
  SMALL_MODEL_TOOL_NAMES,
  firstSentence,
  smallModelTools
} from '../tools/small-model-tools';

describe('small-model profile', () => {
  it('offers a few tools with one-sentence descriptions', () => {
    const tools = smallModelTools();
    expect(tools.map(t => t.name)).toEqual([...SMALL_MODEL_TOOL_NAMES]);
    expect(tools.length).toBeLessThan(agentTools().length / 2);
    for (const tool of tools) {
      const full = agentTools().find(t => t.name === tool.name);
      expect(full).toBeDefined();
      expect(tool.description.length).toBeLessThanOrEqual(
        full?.description.length ?? 0
      );
      expect(tool.description).toMatch(/[.!?]$/);
      // Same behaviour: the same execute and parameters.
      expect(tool.execute).toBe(full?.execute);
      expect(tool.parameters).toBe(full?.parameters);
    }
  });

  it('leaves the full toolset unchanged', () => {
    const tool = agentTools().find(t => t.name === 'insert_cell');
    smallModelTools();
    expect(tool?.description).toBe(
      agentTools().find(t => t.name === 'insert_cell')?.description
    );
  });

  it('has a much shorter first request than the remote one (prompt and tool schemas), naming the notebook and tools', () => {
    const small = smallModelSystemPrompt({
      notebookPath: 'work/a.ipynb',
      toolNames: SMALL_MODEL_TOOL_NAMES
    });
    const full = systemPrompt({ notebookPath: 'work/a.ipynb' });
    // What the server reads before the first token: the system prompt and
    // the tools' schemas (the worked example makes the small prompt itself
    // more than half the standard one's words, not of the request).
    const request = (
      prompt: string,
      tools: ReadonlyArray<{
        name: string;
        description: string;
        parameters: unknown;
      }>
    ) =>
      prompt.length +
      JSON.stringify(
        tools.map(({ name, description, parameters }) => ({
          name,
          description,
          parameters
        }))
      ).length;
    expect(request(small, smallModelTools())).toBeLessThan(
      request(full, agentTools()) / 3
    );
    expect(small).toContain('"work/a.ipynb"');
    expect(small).toContain(
      'Tools: read_notebook, insert_cell, run_cell, edit_cell.'
    );
  });

  it('starts the same in every notebook (a stable prefix for the prompt cache) and names the notebook last', () => {
    const prompt = (path: string, protocol: 'native' | 'text') =>
      smallModelSystemPrompt({
        notebookPath: path,
        toolNames: SMALL_MODEL_TOOL_NAMES,
        protocol
      });
    for (const protocol of ['native', 'text'] as const) {
      const a = prompt('a.ipynb', protocol);
      const b = prompt('work/other.ipynb', protocol);
      const [lastA, lastB] = [a, b].map(p => p.split('\n').pop());
      expect(lastA).toBe('The notebook is "a.ipynb".');
      expect(lastB).toBe('The notebook is "work/other.ipynb".');
      expect(a.slice(0, -lastA!.length)).toBe(b.slice(0, -lastB!.length));
    }
  });

  it('shows one worked example, on its own data, before the notebook line', () => {
    for (const protocol of ['native', 'text'] as const) {
      const prompt = smallModelSystemPrompt({
        notebookPath: 'a.ipynb',
        toolNames: SMALL_MODEL_TOOL_NAMES,
        protocol
      });
      expect(prompt).toContain(
        "df['cost'] = df['km'] * df['price_per_km']\nprint(df['cost'].sum())"
      );
      expect(prompt.indexOf('Example.')).toBeLessThan(
        prompt.indexOf('The notebook is')
      );
      // The text protocol shows a fenced block, the native one a call.
      expect(prompt.includes('```python')).toBe(protocol === 'text');
    }
  });

  it('leaves the example out for models under WORKED_EXAMPLE_MIN_B, by the size their name states', () => {
    const tools = new ToolRegistry(agentTools());
    const systemFor = (name: string) => {
      const model = Object.assign(new ScriptedModel([]), { model: name });
      const setup = prepareRun(
        {
          tools,
          smallTools: new ToolRegistry(smallModelTools()),
          profile: () => 'small',
          toolProtocol: () => 'text'
        },
        model,
        'n.ipynb',
        tools
      );
      return setup.system.role === 'system' ? setup.system.content : '';
    };
    expect(systemFor('smollm2-135m')).not.toContain('Example.');
    expect(systemFor('qwen2.5-coder-0.5b-instruct')).toContain('Example.');
    expect(systemFor('qwen2.5-coder:1.5b')).toContain('Example.');
    // No size in the name: the example (the in-browser catalogue's are 0.5B and up).
    expect(systemFor('my-local-model')).toContain('Example.');
    expect(statedBillions('SmolLM2-135M-Instruct')).toBe(0.135);
    expect(statedBillions('mixtral-8x7b')).toBeNull();
    expect(WORKED_EXAMPLE_MIN_B).toBeGreaterThan(0.135);
  });

  it('cuts a description to its first sentence', () => {
    expect(firstSentence('Run a cell. It waits 30 s.')).toBe('Run a cell.');
    expect(firstSentence('Use v1.2 safely. More.')).toBe('Use v1.2 safely.');
    expect(firstSentence('No stop')).toBe('No stop');
  });
});
