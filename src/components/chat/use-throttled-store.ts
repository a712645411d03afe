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

/**
 * The store's snapshot, updated at most every `intervalMs`, except for
 * changes `urgent` flags (say, a run starting or ending), shown at once.
 */
export function useThrottledStore<T>(
  store: IExternalStore<T>,
  intervalMs = 50,
  urgent: (shown: T, next: T) => boolean = () => false
): T {
  const [snapshot, setSnapshot] = useState(store.getSnapshot);
  useEffect(() => {
    let timer: number | null = null;
    let last = 0;
    let shown = store.getSnapshot();
    const flush = () => {
      if (timer !== null) {
        window.clearTimeout(timer);
      }
      timer = null;
      last = Date.now();
      shown = store.getSnapshot();
      setSnapshot(shown);
    };
    const unsubscribe = store.subscribe(() => {
      if (urgent(shown, store.getSnapshot())) {
        flush();
        return;
      }
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
    // `urgent` is read at subscription time: pass a stable function.
  }, [store, intervalMs]);
  return snapshot;
}
