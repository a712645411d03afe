/**
 * Registrations before the agent's tools exist (tools/tool-queue.ts): the
 * same checks and messages as the registry's, added to it when it exists.
 */
import { AGENT_TOOL_NAMES } from '../tools/agent-tool-names';
import { agentTools } from '../tools/all-tools';
import { externalTool, type IExternalTool } from '../tools/external-tool';
import { ToolRegistry } from '../tools/registry';
import { ToolQueue } from '../tools/tool-queue';

const tool = (name: string): IExternalTool => ({
  name,
  description: 'Count the words of a text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
  kind: 'read',
  execute: () => 'counted'
});

/** What registering `definition` throws, through the queue and through the registry. */
function refusals(definition: IExternalTool): [string, string] {
  const message = (register: () => unknown) => {
    try {
      register();
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  };
  return [
    message(() => new ToolQueue().register(definition, 'another extension')),
    message(() =>
      new ToolRegistry(agentTools()).register(
        externalTool(definition),
        'another extension'
      )
    )
  ];
}

describe('the queue of tools registered before the tools load', () => {
  it('knows the names of the agent’s own tools', () => {
    expect(AGENT_TOOL_NAMES).toEqual(agentTools().map(t => t.name));
  });

  it('refuses what the registry refuses, in its words', () => {
    for (const definition of [
      tool('run_cell'),
      tool('not a name'),
      { ...tool('ok_name'), description: '' },
      { ...tool('ok_name'), parameters: { type: 'string' } },
      { ...tool('ok_name'), kind: 'delete' as never }
    ]) {
      const [queued, registered] = refusals(definition);
      expect(queued).not.toBe('');
      expect(queued).toBe(registered);
    }
    const queue = new ToolQueue();
    queue.register(tool('myext__count'), 'myext');
    expect(() => queue.register(tool('myext__count'), 'other')).toThrow(
      'A tool named "myext__count" is already registered (by myext)'
    );
  });

  it('adds its tools to the registry when it exists, and later ones at once', () => {
    const queue = new ToolQueue();
    const kept = queue.register(tool('a__kept'), 'a');
    const dropped = queue.register(tool('b__dropped'), 'b');
    dropped.dispose();
    expect(dropped.isDisposed).toBe(true);
    const registry = new ToolRegistry(agentTools());
    queue.attach((definition, owner) =>
      registry.register(externalTool(definition), owner)
    );
    expect(registry.get('a__kept')).toBeDefined();
    expect(registry.get('b__dropped')).toBeUndefined();
    const later = queue.register(tool('c__later'), 'c');
    expect(registry.get('c__later')).toBeDefined();
    expect(() => queue.register(tool('a__kept'), 'd')).toThrow('(by a)');
    kept.dispose();
    later.dispose();
    expect(registry.get('a__kept')).toBeUndefined();
    expect(registry.get('c__later')).toBeUndefined();
  });
});
