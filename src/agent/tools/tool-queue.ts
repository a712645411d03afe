/**
 * Tools other extensions register before the agent's tools exist (the
 * browser loads them with the first task; extensions register at
 * JupyterLab's start). Each registration is checked at once as the
 * registry would check it (its definition; a valid name, not one of the
 * agent's tools' or another registration's), so `registerTool` still
 * throws what is wrong; the tool is added to the registry once it exists,
 * and later registrations go straight there.
 */
import { AGENT_TOOL_NAMES } from './agent-tool-names';
import {
  checkExternalTool,
  type IExternalTool
} from './external-tool-definition';
import { checkToolName, nameTaken } from './registration';
import type { IToolRegistration } from './registry';

/** Adds a checked definition to the registry (registered by `owner`). */
export type AddTool = (
  definition: IExternalTool,
  owner: string
) => IToolRegistration;

/** A registration waiting for the registry. */
interface IQueued {
  definition: IExternalTool;
  owner: string;
  /** Its registration in the registry, once there is one. */
  added: IToolRegistration | null;
  disposed: boolean;
}

/** Registrations until the registry exists, then the registry's own. */
export class ToolQueue {
  /**
   * Register `definition` (by `owner`, for messages); throws a
   * ToolRegistrationError when it is invalid or its name is taken.
   */
  register(definition: IExternalTool, owner: string): IToolRegistration {
    if (this._add) {
      return this._add(definition, owner);
    }
    checkExternalTool(definition);
    checkToolName(definition.name);
    if (AGENT_TOOL_NAMES.includes(definition.name)) {
      throw nameTaken(definition.name, 'Notebook Agent');
    }
    const holder = this._queued.find(
      queued => queued.definition.name === definition.name
    );
    if (holder) {
      throw nameTaken(definition.name, holder.owner);
    }
    const queued: IQueued = { definition, owner, added: null, disposed: false };
    this._queued.push(queued);
    return {
      get isDisposed() {
        return queued.disposed;
      },
      dispose: () => {
        if (queued.disposed) {
          return;
        }
        queued.disposed = true;
        queued.added?.dispose();
        this._queued = this._queued.filter(other => other !== queued);
      }
    };
  }

  /**
   * The registry exists: add the waiting registrations to it through
   * `add`, in their order, and every later one straight away.
   */
  attach(add: AddTool): void {
    this._add = add;
    for (const queued of this._queued) {
      try {
        queued.added = add(queued.definition, queued.owner);
      } catch (error) {
        // Checked when registered: only a tool added to the registry
        // meanwhile by other means could clash.
        console.error(error);
      }
    }
    this._queued = [];
  }

  private _add: AddTool | null = null;
  private _queued: IQueued[] = [];
}
