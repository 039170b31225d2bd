import type { EventBus } from '../../server/hub/bus';

/**
 * Every event the bus publishes, with the moment it was published: benches time completion where it
 * happens, not by polling. `whenPublished` resolves with the first matching event published since
 * `since` (performance.now(); any time when left out), past or future.
 */
export function recordPublished(bus: EventBus) {
  const published: { event: string; payload: unknown; at: number }[] = [];
  const waiters = new Set<() => void>();
  bus.subscribe(({ event, payload }) => {
    published.push({ event, payload, at: performance.now() });
    for (const check of waiters) check();
  });
  function whenPublished<T>(event: string, match: (payload: T) => boolean, timeoutMs: number, since = 0): Promise<{ payload: T; at: number }> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = published.find((e) => e.at >= since && e.event === event && match(e.payload as T));
        if (!hit) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve({ payload: hit.payload as T, at: hit.at });
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${event} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  }
  return { published, whenPublished };
}
