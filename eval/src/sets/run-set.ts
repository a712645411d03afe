/**
 * Runs a follow-up, Fix or Generate set: one Jupyter server for the run (a
 * private one, or the one given with --server), each task in its own
 * folder, notebook, kernel and AgentSession, tasks in parallel lanes.
 */
import { openEvalServer } from '../eval-server';
import { runFix } from './fix';
import { runFollowup } from './followup';
import { runGenerate } from './generate';
import { inLanes, type ISetRunOptions } from './session';
import type {
  IFixRow,
  IFollowupRow,
  IGenerateRow,
  SessionSet,
  SetRows
} from './types';

/** Run every task of `set`; rows in the set's order. */
export async function runSessionSet(
  set: Extract<SessionSet, { kind: 'followup' }>,
  options: ISetRunOptions
): Promise<IFollowupRow[]>;
export async function runSessionSet(
  set: Extract<SessionSet, { kind: 'fix' }>,
  options: ISetRunOptions
): Promise<IFixRow[]>;
export async function runSessionSet(
  set: Extract<SessionSet, { kind: 'generate' }>,
  options: ISetRunOptions
): Promise<IGenerateRow[]>;
export async function runSessionSet(
  set: SessionSet,
  options: ISetRunOptions
): Promise<SetRows>;
export async function runSessionSet(
  set: SessionSet,
  options: ISetRunOptions
): Promise<SetRows> {
  const server = await openEvalServer(
    options.server,
    options.runId ?? new Date().toISOString().replace(/[:.]/g, '-')
  );
  const lanes = options.concurrency ?? 2;
  try {
    switch (set.kind) {
      case 'followup':
        return await inLanes(
          set.tasks,
          lanes,
          task => runFollowup(set, task, server, options),
          options.onResult
        );
      case 'fix':
        return await inLanes(
          set.tasks,
          lanes,
          task => runFix(set, task, server, options),
          options.onResult
        );
      case 'generate':
        return await inLanes(
          set.tasks,
          lanes,
          task => runGenerate(set, task, server, options),
          options.onResult
        );
    }
  } finally {
    await server.dispose();
  }
}
