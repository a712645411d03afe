/**
 * When inline completion stays quiet although it is on: the agent needs the
 * model more than a suggestion does, and a model on this machine shares the
 * CPU with the kernel. Chosen so that typing never slows the work the user
 * asked for.
 */

/** Where suggestions come from (the setting). */
export type CompletionSourceKind = 'auto' | 'off' | 'endpoint' | 'local';

/** What the rule looks at, read at each keystroke. */
export interface ICompletionMoment {
  /** The agent is running a task (a prompt, Generate, Fix). */
  agentBusy: boolean;
  /** The agent's model runs where the suggestions' does (the same server, or this browser). */
  sharesAgentModel: boolean;
  /** The notebook's kernel is running code. */
  kernelBusy: boolean;
  /** The suggestions come from a model on this machine (the browser or a loopback server). */
  onThisMachine: boolean;
}

/** Why no request is made now, or null when one may be. */
export function quietReason(moment: ICompletionMoment): string | null {
  if (moment.agentBusy && moment.sharesAgentModel) {
    return 'the agent is running a task and needs the model';
  }
  if (moment.kernelBusy && moment.onThisMachine) {
    return 'the kernel is running code on the CPU the model would share';
  }
  return null;
}
