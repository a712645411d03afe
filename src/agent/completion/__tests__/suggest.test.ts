import { suggest } from '../suggest';
import type { ICompletionRequest, ICompletionSource } from '../types';

/** A source that streams `pieces` one per tick and records what it saw. */
class ScriptedSource implements ICompletionSource {
  requests: ICompletionRequest[] = [];
  sent = 0;
  stoppedBy: 'abort' | 'end' | null = null;
  constructor(
    readonly model: string,
    private readonly _pieces: string[]
  ) {}
  async *complete(
    request: ICompletionRequest,
    signal: AbortSignal
  ): AsyncIterable<string> {
    this.requests.push(request);
    for (const piece of this._pieces) {
      await new Promise(resolve => setImmediate(resolve));
      if (signal.aborted) {
        this.stoppedBy = 'abort';
        return;
      }
      this.sent += 1;
      yield piece;
    }
    this.stoppedBy = 'end';
  }
}

const cursor = { before: 'rev = df.groupby(', after: '', cellsAbove: [] };

describe('one suggestion', () => {
  it('streams the source, cleans the text and times it', async () => {
    const source = new ScriptedSource('qwen2.5-coder-0.5b', [
      "'region'",
      ")['units'].sum()  ",
      '\nprint(rev)'
    ]);
    let clock = 0;
    const result = await suggest(
      source,
      cursor,
      { maxTokens: 32 },
      new AbortController().signal,
      () => (clock += 10)
    );
    // The cursor's line has text: the rest of that line is the suggestion.
    expect(result.text).toBe("'region')['units'].sum()");
    expect(result.firstTextMs).toBe(10);
    expect(source.requests[0].prompt).toContain('<|fim_prefix|>');
  });

  it('stops the source once a line is whole', async () => {
    const source = new ScriptedSource('qwen2.5-coder', [
      'units',
      ", 'price'",
      '\n',
      'never needed',
      'nor this'
    ]);
    const result = await suggest(
      source,
      { before: 'cols = [', after: 'x]\n', cellsAbove: [] },
      { maxTokens: 32 },
      new AbortController().signal
    );
    expect(result.text).toBe("units, 'price'");
    expect(source.sent).toBe(3);
  });

  it('rejects when the caller aborts, and the source stops', async () => {
    const source = new ScriptedSource('qwen2.5-coder', ['a', 'b', 'c', 'd']);
    const controller = new AbortController();
    const pending = suggest(
      source,
      cursor,
      { maxTokens: 32 },
      controller.signal
    );
    await new Promise(resolve => setImmediate(resolve));
    controller.abort();
    await expect(pending).rejects.toThrow();
    await new Promise(resolve => setImmediate(resolve));
    expect(source.stoppedBy).toBe('abort');
    expect(source.sent).toBeLessThan(4);
  });

  it('stops a next cell once the model writes an output comment', async () => {
    const source = new ScriptedSource('qwen2.5-coder', [
      "df['units'].max()",
      '\n# Out:',
      '\n# 3',
      '\nmore'
    ]);
    const result = await suggest(
      source,
      { before: '', after: '', cellsAbove: [{ kind: 'code', source: 'df' }] },
      { maxTokens: 64 },
      new AbortController().signal
    );
    expect(result.text).toBe("df['units'].max()");
    expect(source.sent).toBe(2);
    expect(source.requests[0].stop).toContain('\n# Out:');
  });

  it('joins only string pieces (the proxy that filters a key sent in pieces joins strings)', async () => {
    const source = new ScriptedSource('qwen2.5-coder', [
      'x sk-proj-AbC1',
      ['23xyz-0123456789ABCDEF'] as unknown as string,
      23 as unknown as string,
      ' y'
    ]);
    const result = await suggest(
      source,
      cursor,
      { maxTokens: 32 },
      new AbortController().signal
    );
    expect(result.raw).toBe('x sk-proj-AbC1 y');
  });
});
