/**
 * Read an external store (the session) at most once per interval. A
 * streaming reply changes the store for every few characters; rendering the
 * chat that often starves the page. The latest snapshot always wins, and
 * the first change after a quiet period shows at once.
 */
import { useEffect, useState } from 'react';

/** A store with `subscribe` and `getSnapshot`, as useSyncExternalStore takes. */
export interface IExternalStore<T> {
  subscribe: (listener: () => void) => () => void;
  getSnapshot: () => T;
}

/** The store's snapshot, updated at most every `intervalMs`. */
export function useThrottledStore<T>(
  store: IExternalStore<T>,
  intervalMs = 50
): T {
  const [snapshot, setSnapshot] = useState(store.getSnapshot);
  useEffect(() => {
    let timer: number | null = null;
    let last = 0;
    const flush = () => {
      timer = null;
      last = Date.now();
      setSnapshot(store.getSnapshot());
    };
    const unsubscribe = store.subscribe(() => {
      if (timer !== null) {
        return;
      }
      const wait = Math.max(0, last + intervalMs - Date.now());
      timer = window.setTimeout(flush, wait);
    });
    // Changes between the first render and the subscription.
    setSnapshot(store.getSnapshot());
    return () => {
      unsubscribe();
      if (timer !== null) {
        window.clearTimeout(timer);
      }
    };
  }, [store, intervalMs]);
  return snapshot;
}
