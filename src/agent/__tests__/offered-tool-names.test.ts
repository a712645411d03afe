/**
 * What the model reads names only tools it is offered, in every profile:
 * the system prompt and the tools' descriptions, the observation of every
 * kind of run result, and the texts a prompt, a fix and a generation send
 * (with a cell left running past the soft timeout). A name the run does not
 * offer sends a small model after a tool it cannot call.
 */
import { formatRunResult } from '../context/observations';
import { addAndRunCell, rewriteAndRunCell } from '../loop/code-block-tools';
import type { IChatRequest } from '../model/types';
import type { IRunResult } from '../ports';
import { AgentSession } from '../session';
import { prepareRun } from '../session/run-setup';
import type { ISessionOptions } from '../session/types';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel, type ScriptedTurn } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry, type ITool } from '../tools/registry';
import { DEFAULT_RUN_SETTINGS } from '../tools/run-state';
import { smallModelTools } from '../tools/small-model-tools';

const PROFILES = [
  { profile: 'standard', protocol: 'native' },
  { profile: 'standard', protocol: 'text' },
  { profile: 'small', protocol: 'native' },
  { profile: 'small', protocol: 'text' }
] as const;

type Profile = (typeof PROFILES)[number];

/** Every tool a run may be offered. */
const ALL_TOOLS = [
  ...agentTools(),
  addAndRunCell,
  rewriteAndRunCell
] as ITool<unknown>[];

/** The tools `text` names: by their names (`wait` only as a call, not the word). */
function namedTools(text: string): string[] {
  return ALL_TOOLS.map(tool => tool.name).filter(name =>
    name.includes('_')
      ? new RegExp(`(?<![\\w])${name}(?![\\w])`).test(text)
      : new RegExp(`\`${name}\`|\\bcall ${name}\\b`, 'i').test(text)
  );
}

function options(profile: Profile): ISessionOptions {
  return {
    tools: new ToolRegistry(agentTools()),
    smallTools: new ToolRegistry(smallModelTools()),
    profile: () => profile.profile,
    toolProtocol: () => profile.protocol,
    toolProtocolChosen: () => true,
    approvalMode: () => 'run-everything',
    runSettings: () => ({ ...DEFAULT_RUN_SETTINGS, softTimeoutMs: 150 })
  };
}

/** The tool names offered in `profile`, as the run is set up. */
function offeredIn(profile: Profile): Set<string> {
  const config = prepareRun(
    options(profile),
    new ScriptedModel([]),
    'a.ipynb',
    new ToolRegistry([addAndRunCell, rewriteAndRunCell] as ITool<never>[])
  );
  return new Set(config.tools.specs.map(spec => spec.name));
}

/** `texts` by what they name that is not offered (empty: all is well). */
function strays(
  texts: ReadonlyArray<{ where: string; text: string }>,
  offered: ReadonlySet<string>
): string[] {
  return texts.flatMap(({ where, text }) =>
    namedTools(text)
      .filter(name => !offered.has(name))
      .map(name => `${where}: ${name}`)
  );
}

/** The texts of a model's requests: messages, and the tools' descriptions. */
function requestTexts(requests: ReadonlyArray<IChatRequest>) {
  return requests.flatMap((request, index) => [
    ...request.messages.map(message => ({
      where: `request ${index + 1}, ${message.role} message`,
      text: typeof message.content === 'string' ? message.content : ''
    })),
    ...(request.tools ?? []).map(spec => ({
      where: `request ${index + 1}, ${spec.name}'s description`,
      text: spec.description
    }))
  ]);
}

/** Every kind of run result a run observation describes. */
const RESULTS: IRunResult[] = [
  { cellId: 'c1', status: 'ok', executionCount: 1, outputs: [] },
  { cellId: 'c1', status: 'error', executionCount: 1, outputs: [] },
  { cellId: 'c1', status: 'running', executionCount: 1, outputs: [] },
  { cellId: 'c1', status: 'aborted', executionCount: 1, outputs: [] },
  {
    cellId: 'c1',
    status: 'aborted',
    executionCount: 1,
    outputs: [],
    notStopped: true
  },
  {
    cellId: 'c1',
    status: 'aborted',
    executionCount: 1,
    outputs: [],
    kernelRestarted: true
  },
  { cellId: 'c1', status: 'timeout', executionCount: 1, outputs: [] },
  { cellId: null, status: 'timeout', executionCount: null, outputs: [] },
  {
    cellId: 'c1',
    status: 'timeout',
    executionCount: 1,
    outputs: [],
    notStopped: true
  },
  { cellId: 'c1', status: 'kernel-died', executionCount: null, outputs: [] },
  {
    cellId: 'c1',
    status: 'kernel-died',
    executionCount: null,
    outputs: [],
    kernelEvent: 'restarted'
  },
  {
    cellId: 'c1',
    status: 'kernel-died',
    executionCount: null,
    outputs: [],
    kernelEvent: 'lost'
  }
];

/** A notebook whose `sleep` code runs past the soft timeout, and whose `boom` fails. */
function notebook(): FakeNotebook {
  return new FakeNotebook({
    cells: [{ id: 'c1', source: 'boom()' }],
    execute: async (source, signal) => {
      if (source.includes('sleep')) {
        await new Promise(resolve => setTimeout(resolve, 400));
      }
      return source.includes('boom')
        ? [
            {
              type: 'error',
              ename: 'NameError',
              evalue: "name 'boom' is not defined",
              traceback: []
            }
          ]
        : [{ type: 'stream', name: 'stdout', text: '42\n' }];
    }
  });
}

/** A turn that runs `code` in a new cell, as the profile's protocol asks for it. */
function runTurn(profile: Profile, code: string): ScriptedTurn {
  return profile.protocol === 'text'
    ? { text: '```python\n' + code + '\n```' }
    : {
        toolCalls: [
          { name: 'insert_cell', arguments: { source: code, run: true } }
        ]
      };
}

describe.each(PROFILES)(
  'what the model reads, $profile profile, $protocol protocol',
  profile => {
    const offered = offeredIn(profile);

    it('names offered tools only in its system prompt and tool descriptions', () => {
      const config = prepareRun(
        options(profile),
        new ScriptedModel([]),
        'a.ipynb',
        new ToolRegistry([addAndRunCell, rewriteAndRunCell] as ITool<never>[])
      );
      const texts = [
        { where: 'system prompt', text: String(config.system.content) },
        ...config.tools.specs.map(spec => ({
          where: `${spec.name}'s description`,
          text: spec.description
        }))
      ];
      expect(strays(texts, offered)).toEqual([]);
    });

    it('names offered tools only in its run observations', () => {
      const texts = RESULTS.map(result => ({
        where: `${result.status}${result.kernelEvent ? ` (${result.kernelEvent})` : ''}${result.notStopped ? ', not stopped' : ''}${result.kernelRestarted ? ', restarted' : ''}${result.cellId ? '' : ', scratch'}`,
        text: formatRunResult(result, undefined, name => offered.has(name))
      }));
      expect(strays(texts, offered)).toEqual([]);
    });

    it('names offered tools only in a prompt’s turns, a cell left running included', async () => {
      const model = new ScriptedModel([
        runTurn(profile, 'import time; time.sleep(1)'),
        runTurn(profile, 'print(6 * 7)'),
        { text: 'The answer is 42.' },
        { text: 'The answer is 42.' },
        { text: 'The answer is 42.' }
      ]);
      const session = new AgentSession(options(profile));
      await session.send('What is 6 * 7?', {
        model: () => model,
        notebook: notebook()
      });
      expect(strays(requestTexts(model.requests), offered)).toEqual([]);
    });

    it('names offered tools only in a fix’s and a generation’s turns', async () => {
      const turns = Array.from({ length: 8 }, () => ({ text: 'Done.' }));
      const fixing = new ScriptedModel([...turns]);
      const session = new AgentSession(options(profile));
      await session.fixCell(
        'c1',
        { model: () => fixing, notebook: notebook() },
        { maxAttempts: 1 }
      );
      const generating = new ScriptedModel([...turns]);
      await session.generate('Analyse sales.csv and plot it', {
        model: () => generating,
        notebook: new FakeNotebook({ cells: [] })
      });
      expect(
        strays(
          requestTexts([...fixing.requests, ...generating.requests]),
          offered
        )
      ).toEqual([]);
    });
  }
);
