/**
 * A value that tells its subscribers when it changes, in the shape React's
 * `useSyncExternalStore` reads (`subscribe`, `getSnapshot`): the one store
 * primitive of the chat, the attachments, the MCP listing, the local
 * model's load and reach, and the sidebar's configuration.
 */

/** A value to subscribe to. */
export interface IReadable<T> {
  subscribe: (listener: () => void) => () => void;
  getSnapshot: () => T;
}

/** A value and its listeners. */
export class ValueStore<T> implements IReadable<T> {
  constructor(private _value: T) {}

  /** Register a listener; returns the function that removes it. */
  subscribe = (listener: () => void): (() => void) => {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  };

  /** The current value (replaced, never changed in place). */
  getSnapshot = (): T => this._value;

  /** Replace the value; listeners run when it is another one. */
  set(value: T): void {
    if (value !== this._value) {
      this._value = value;
      this._listeners.forEach(listener => listener());
    }
  }

  /** Replace some fields of an object value (a new object), and tell the listeners. */
  patch(this: ValueStore<T & object>, patch: Partial<T>): void {
    this.set({ ...this._value, ...patch });
  }

  private readonly _listeners = new Set<() => void>();
}
