/**
 * Cell ids for an eval task's notebook that are the same in every run.
 *
 * The agent's prompts name cells by id, and JupyterLab's ids are random
 * UUIDs: with them, a rerun of the same commit sent the model different
 * tokens, and a greedy model answered some tasks differently on the same
 * machine (each move looked at was traced to the ids). Seeded by
 * the task, the n-th new cell of a task gets the same id each run, in the
 * same form as a real one (a version-4 UUID), so the prompts repeat.
 */
import { createHash } from 'node:crypto';

/** A source of ids: the n-th call gives sha-256(`seed`, n) shaped as a UUID v4. */
export function seededCellIds(seed: string): () => string {
  let next = 0;
  return () => {
    const hex = createHash('sha256')
      .update(`${seed}\u0000${next++}`)
      .digest('hex');
    // Version 4 and the RFC 4122 variant, as crypto.randomUUID() writes them.
    const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
    return [
      hex.slice(0, 8),
      hex.slice(8, 12),
      `4${hex.slice(13, 16)}`,
      `${variant}${hex.slice(17, 20)}`,
      hex.slice(20, 32)
    ].join('-');
  };
}
