/**
 * A chat session: the facade (AgentSession) and the types its users need.
 * `import … from '../agent/session'` keeps working for every caller.
 */
export { AgentSession } from './agent-session';
export { ChatSession, type HeldStart } from './chat-session';
export type {
  IFixReview,
  IGenerateRequestOptions,
  IModelChoice,
  IRunTarget,
  ISessionOptions,
  ISessionState,
  IWorkflowHost,
  TaskTurn,
  TaskWork,
  TranscriptItem
} from './types';
