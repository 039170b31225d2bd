import type { Clock } from '../clock';
import { removeLogs, trimOldestBatch } from '../db/logs';
import type { Db } from '../db/schema';
import type { LogService } from './logService';

export interface RetentionSettings {
  /** 0 keeps entries of any age. */
  maxAgeMs: number;
  /** 0 is no cap. */
  maxBytes: number;
  intervalMs: number;
  /** Entries removed per statement; ingestion and requests run between batches. */
  batchSize?: number;
}

/**
 * Trims the log store in the background (WARDEN_LOG_RETENTION, WARDEN_LOG_MAX_BYTES): entries past
 * the age first, then the oldest until the store fits the byte cap, in small batches so a large
 * trim never holds the store for long. Each trim that removed something is itself logged.
 */
export class LogRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly db: Db,
    private readonly logs: LogService,
    private readonly clock: Clock,
    private readonly settings: RetentionSettings,
  ) {}

  start() {
    if (this.timer || (this.settings.maxAgeMs === 0 && this.settings.maxBytes === 0)) return;
    this.timer = setInterval(() => void this.trimOnce().catch(() => undefined), this.settings.intervalMs);
    this.timer.unref();
    void this.trimOnce().catch(() => undefined);
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One full trim; overlapping calls share it. Answers how many entries went. */
  trimOnce(): Promise<number> {
    this.running ??= this.trim().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async trim(): Promise<number> {
    const { maxAgeMs, maxBytes, batchSize = 1000 } = this.settings;
    let byAge = 0;
    let cutoff: string | null = null;
    if (maxAgeMs > 0) {
      cutoff = new Date(this.clock().getTime() - maxAgeMs).toISOString();
      byAge = await removeLogs(this.db, { scope: { kind: 'all' }, to: cutoff }, batchSize);
    }
    let bySize = 0;
    if (maxBytes > 0) {
      for (;;) {
        const removed = await trimOldestBatch(this.db, maxBytes, batchSize);
        if (removed === 0) break;
        bySize += removed;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (byAge + bySize > 0) {
      const parts = [byAge > 0 && `${byAge} older than ${cutoff}`, bySize > 0 && `${bySize} oldest to fit ${maxBytes} bytes`].filter(Boolean);
      await this.logs.write({
        level: 'information',
        instanceId: null,
        handler: 'logs',
        message: `Log retention removed ${parts.join(' and ')}`,
        properties: { removedByAge: byAge, removedBySize: bySize, cutoff, maxBytes },
      });
    }
    return byAge + bySize;
  }
}
