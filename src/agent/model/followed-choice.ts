/**
 * Which choice of a stream a reader joins: the first one the stream names.
 *
 * A streamed answer can carry several choices (`n` > 1, which this client
 * never asks for). Each is an answer of its own: OpenAI's clients join each
 * choice's text apart, and so does the server's filter that looks across
 * events for a key sent in pieces (jupyterlab_notebook_agent/sse_deltas.py).
 * A reader that joined every choice into one text could join what that
 * filter saw apart: the start of a key in choice 0, the rest in choice 1.
 * So the agent's readers follow one choice, the first one named, and leave
 * the others.
 */

/** A choice as a stream sends it: its `index`, or none. */
interface IIndexed {
  index?: number | null;
}

/** The choice a stream names first, and whether later choices are it. */
export class FollowedChoice {
  private _index: number | undefined;

  /**
   * The choices of one chunk that belong to the followed one. A choice is
   * its `index` when that is a number, else its place in the chunk (as the
   * server's filter reads it).
   */
  pick<T extends IIndexed>(choices: readonly T[] | null | undefined): T[] {
    const picked: T[] = [];
    (choices ?? []).forEach((choice, position) => {
      const index = typeof choice?.index === 'number' ? choice.index : position;
      this._index ??= index;
      if (index === this._index) {
        picked.push(choice);
      }
    });
    return picked;
  }
}
