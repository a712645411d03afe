/**
 * An outside agent's run in the sidebar's chat: the calls an MCP client
 * (Claude Code, Codex, …) makes on a notebook open in JupyterLab run here,
 * through the agent's own tools and approval policy, shown in the chat as a
 * run of their own — "<client> is working in analysis.ipynb", a card per
 * call, approval cards, Stop (which interrupts what runs) and one Undo for
 * the whole run (the notebook's undo group, as for the own agent's runs).
 *
 * Built over the sidebar's chat (it shares its store and controls, as
 * `AgentSession` does), so the own agent and an outside run never work at
 * once: a call while the own agent runs is refused, and so is a task while an
 * outside run holds the chat (the chat is busy).
 */
import type { ApprovalMode } from '../loop/approval';
import { applyItem } from '../loop/conversation';
import { callItem, executeToolCall, resultItem } from '../loop/tool-step';
import type { INotebookPort } from '../ports';
import { ChatSession } from '../session/chat-session';
import type { ToolRegistry } from '../tools/registry';
import { RunState } from '../tools/run-state';
import type { IToolCall } from '../types';
import { mcpResult, textResult, type IMcpToolResult } from './mcp-result';

/** A call relayed from the server (outside_hub.py). */
export interface IOutsideCall {
  id: string;
  /** The MCP session it belongs to. */
  session: string;
  /** The client's name, as it gave it. */
  client: string;
  tool: string;
  /** The call's arguments, `notebook` included. */
  arguments: Record<string, unknown>;
}

/** Where a call runs: the notebook's live port and the tools. */
export interface IOutsideTarget {
  notebook: INotebookPort;
  tools: ToolRegistry;
  approvalMode: ApprovalMode;
}

/** How long an outside run lasts without a call. */
export const OUTSIDE_IDLE_MS = 120_000;

interface IOutsideRun {
  session: string;
  client: string;
  path: string;
  notebook: INotebookPort;
  controller: AbortController;
  state: RunState;
  timer: ReturnType<typeof setTimeout> | null;
}

/** What an outside agent is told when the own agent holds the chat. */
export const OWN_AGENT_BUSY =
  "Notebook Agent's own agent is working in this JupyterLab now; nothing was done. Call again when its run has ended.";

/** Outside runs in the sidebar's chat. */
export class OutsideSession extends ChatSession {
  constructor(
    chat: ChatSession,
    private readonly _idleMs = OUTSIDE_IDLE_MS
  ) {
    super(chat);
  }

  /** The outside run now, if any: its client and notebook. */
  get outsideRun(): { client: string; path: string } | null {
    const run = this._run;
    return run ? { client: run.client, path: run.path } : null;
  }

  /** Run one call (calls run one at a time, in the order they came). */
  call(call: IOutsideCall, target: IOutsideTarget): Promise<IMcpToolResult> {
    const next = this._queue.then(() => this._call(call, target));
    this._queue = next.then(
      () => undefined,
      () => undefined
    );
    return next;
  }

  /** The client's session ended: its run ends, and what the user stopped is forgotten. */
  sessionEnded(session: string): void {
    if (this._run?.session === session) {
      this._end(this._run, 'finished');
    }
    for (const key of [...this._stopped]) {
      if (key.startsWith(`${session}\n`)) {
        this._stopped.delete(key);
      }
    }
  }

  private async _call(
    call: IOutsideCall,
    target: IOutsideTarget
  ): Promise<IMcpToolResult> {
    const path = target.notebook.path;
    if (this._stopped.has(`${call.session}\n${path}`)) {
      return textResult(
        `The user stopped your run in ${path}. Nothing was done; do not go on in this notebook unless the user asks you to.`,
        true
      );
    }
    let run = this._run;
    if (run && (run.session !== call.session || run.path !== path)) {
      if (run.session !== call.session) {
        return textResult(
          `${run.client} is working in ${run.path} now; nothing was done. Call again when its run has ended.`,
          true
        );
      }
      this._end(run, 'finished');
      run = null;
    }
    if (!run) {
      if (this.busy) {
        return textResult(OWN_AGENT_BUSY, true);
      }
      run = this._begin(call, target.notebook);
    }
    if (run.timer !== null) {
      clearTimeout(run.timer);
      run.timer = null;
    }
    try {
      return await this._execute(run, call, target);
    } finally {
      if (this._run === run) {
        const ending = run;
        run.timer = setTimeout(
          () => this._end(ending, 'finished'),
          this._idleMs
        );
      }
    }
  }

  private _begin(call: IOutsideCall, notebook: INotebookPort): IOutsideRun {
    const store = this._store;
    const controller = new AbortController();
    const run: IOutsideRun = {
      session: call.session,
      client: call.client,
      path: notebook.path,
      notebook,
      controller,
      state: new RunState(),
      timer: null
    };
    this._run = run;
    this._controls.controller = controller;
    store.notebookPath = notebook.path;
    store.set({ status: 'running', error: null });
    store.notice(`${run.client} is working in ${run.path}`);
    notebook.beginUndoGroup();
    controller.signal.addEventListener('abort', () => {
      if (this._run === run) {
        this._stopped.add(`${run.session}\n${run.path}`);
        this._end(run, 'stopped');
      }
    });
    return run;
  }

  private async _execute(
    run: IOutsideRun,
    call: IOutsideCall,
    target: IOutsideTarget
  ): Promise<IMcpToolResult> {
    const { tools } = target;
    const args = { ...call.arguments };
    delete args.notebook;
    const toolCall: IToolCall = {
      id: `outside-${call.session.slice(0, 8)}-${call.id}`,
      name: call.tool,
      arguments: JSON.stringify(args)
    };
    const store = this._store;
    const turn = { conversation: store, onEvent: () => undefined };
    // The chat's model reads the outside call as a call of its own (a valid
    // conversation: a request, a reply calling the tool, its answer), after a
    // line saying whose it was; the transcript shows its card.
    applyItem(
      turn,
      {
        type: 'message',
        message: {
          role: 'user',
          content: `${run.client}, an outside agent, made this call in ${run.path}:`
        }
      },
      {
        type: 'reply',
        message: { role: 'assistant', content: null, toolCalls: [toolCall] },
        shown: ''
      },
      callItem(tools, toolCall)
    );
    const started = Date.now();
    const result = await executeToolCall(
      toolCall,
      {
        config: { tools, approvalMode: target.approvalMode },
        turn: { notebook: run.notebook, signal: run.controller.signal },
        state: run.state
      },
      (request, signal) => this._controls.approvals.ask(request, signal)
    );
    if (result.fileChange) {
      this._controls.files.record(toolCall.id, run.notebook, result.fileChange);
    }
    applyItem(turn, resultItem(toolCall, result, Date.now() - started));
    return mcpResult(result);
  }

  private _end(run: IOutsideRun, how: 'finished' | 'stopped'): void {
    if (this._run !== run) {
      return;
    }
    this._run = null;
    if (run.timer !== null) {
      clearTimeout(run.timer);
    }
    run.notebook.endUndoGroup();
    if (this._controls.controller === run.controller) {
      this._controls.controller = null;
    }
    this._store.set({ status: 'idle', pendingApproval: null });
    this._store.notice(
      how === 'stopped'
        ? `You stopped ${run.client} in ${run.path}. One Undo (Z in command mode) reverts its changes.`
        : `${run.client} finished in ${run.path}. One Undo (Z in command mode) reverts its changes.`
    );
  }

  private _run: IOutsideRun | null = null;
  private _queue: Promise<void> = Promise.resolve();
  private readonly _stopped = new Set<string>();
}
