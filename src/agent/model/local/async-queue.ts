/**
 * A queue that callbacks push into and an async iterator drains: it turns
 * worker events into the chunks of `streamChat`.
 */

/** Push values in; iterate them out, in order. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private _items: T[] = [];
  private _waiting: ((result: IteratorResult<T>) => void) | null = null;
  private _closed = false;

  /** Add a value. */
  push(item: T): void {
    if (this._closed) {
      return;
    }
    if (this._waiting) {
      const resolve = this._waiting;
      this._waiting = null;
      resolve({ value: item, done: false });
    } else {
      this._items.push(item);
    }
  }

  /** End the iteration after the values already queued. */
  close(): void {
    this._closed = true;
    if (this._waiting && !this._items.length) {
      const resolve = this._waiting;
      this._waiting = null;
      resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this._items.length) {
          return Promise.resolve({
            value: this._items.shift() as T,
            done: false
          });
        }
        if (this._closed) {
          return Promise.resolve({ value: undefined, done: true });
        }
        return new Promise(resolve => (this._waiting = resolve));
      }
    };
  }
}
