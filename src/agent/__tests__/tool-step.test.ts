/**
 * One call through the loop's tool step: its arguments are checked once
 * and the checked call runs; new arguments (code the user edited) are
 * checked again; a tool that throws gives its failure as the observation.
 */
import type { ApprovalMode } from '../loop/approval';
import { executeToolCall } from '../loop/tool-step';
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { defineTool, ToolRegistry, type ITool } from '../tools/registry';
import { RunState } from '../tools/run-state';
import type { IToolCall } from '../types';

function runOf(tools: ToolRegistry, mode: ApprovalMode = 'run-everything') {
  return {
    config: { tools, approvalMode: mode },
    turn: {
      notebook: new FakeNotebook({
        execute: code => [{ type: 'stream', name: 'stdout', text: `${code}\n` }]
      }),
      signal: new AbortController().signal
    },
    state: new RunState()
  };
}

const scratch = (code: string): IToolCall => ({
  id: 'c1',
  name: 'run_code',
  arguments: JSON.stringify({ code })
});

describe('the tool step', () => {
  it('checks a call once and runs it as checked', async () => {
    const tools = new ToolRegistry(agentTools());
    const check = jest.spyOn(tools, 'check');
    const call = jest.spyOn(tools, 'call');
    const result = await executeToolCall(scratch('"a"'), runOf(tools));
    expect(result.ok).toBe(true);
    expect(result.output).toContain('"a"');
    expect(check).toHaveBeenCalledTimes(1);
    expect(call).not.toHaveBeenCalled();
  });

  it('checks the arguments again when the user edited the code, and runs the edit', async () => {
    const tools = new ToolRegistry(agentTools());
    const check = jest.spyOn(tools, 'check');
    const result = await executeToolCall(
      scratch('"a"'),
      runOf(tools, 'ask-before-running'),
      async () => ({ approved: true, code: '"b"' })
    );
    expect(check).toHaveBeenCalledTimes(2);
    expect(JSON.parse(check.mock.calls[1][0].arguments)).toEqual({
      code: '"b"'
    });
    expect(result.output).toContain('"b"');
    expect(result.output).not.toContain('"a"');
    expect(result.output).toContain('The user edited the code');
  });

  it('refuses an invalid call before asking anyone', async () => {
    const tools = new ToolRegistry(agentTools());
    const asked = jest.fn();
    const result = await executeToolCall(
      { id: 'c1', name: 'run_code', arguments: '{"code": 1}' },
      runOf(tools, 'ask-before-running'),
      asked
    );
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/invalid arguments for run_code/);
    expect(asked).not.toHaveBeenCalled();
  });

  it('turns a tool that throws into an observation the model can read', async () => {
    const broken = defineTool<{ x: number }>({
      name: 'broken',
      kind: 'read',
      title: 'Break',
      description: 'Always throws.',
      parameters: {
        type: 'object',
        properties: { x: { type: 'number' } },
        required: ['x']
      },
      execute() {
        throw new Error('disk on fire');
      }
    });
    const tools = new ToolRegistry([broken] as ITool<never>[]);
    const result = await executeToolCall(
      { id: 'c1', name: 'broken', arguments: '{"x": 1}' },
      runOf(tools)
    );
    expect(result).toEqual({
      ok: false,
      output: 'Error: broken failed: disk on fire'
    });
  });
});
