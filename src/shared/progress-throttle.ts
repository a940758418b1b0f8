/**
 * Coalesces a stream of contract events for a transport: `progress` events are merged per crawl
 * and flushed at most every `intervalMs`; every other event (and a progress event whose crawl has
 * ended) flushes what is pending first, so order per crawl is kept and the final state is never lost.
 */
import type { EventName } from './contract.js';
import type { CrawlProgress } from '../main/core/model.js';

export interface EventThrottle {
  push(event: EventName, payload: unknown): void;
  /** Sends anything pending and stops the timer. */
  dispose(): void;
}

export function throttleEvents(
  send: (event: EventName, payload: unknown) => void,
  intervalMs = 100,
): EventThrottle {
  const pending = new Map<number, CrawlProgress>();
  let timer: ReturnType<typeof setTimeout> | null = null;

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = [...pending.values()];
    pending.clear();
    for (const progress of batch) send('progress', progress);
  };

  return {
    push(event, payload) {
      const progress = payload as CrawlProgress | null;
      if (
        event === 'progress' &&
        progress &&
        typeof progress.crawlId === 'number' &&
        progress.state === 'running'
      ) {
        pending.set(progress.crawlId, progress);
        timer ??= setTimeout(flush, intervalMs);
        return;
      }
      if (event === 'progress' && progress && typeof progress.crawlId === 'number')
        pending.delete(progress.crawlId);
      flush();
      send(event, payload);
    },
    dispose() {
      flush();
    },
  };
}
