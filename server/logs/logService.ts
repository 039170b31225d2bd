import type { LogEntry, LogsAppendedPayload } from '../../contracts/logs';
import type { InstanceType } from '../../contracts/instanceValues';
import type { Clock } from '../clock';
import { insertLogEntries, offsetStore, type NewLogEntry } from '../db/logs';
import type { Db } from '../db/schema';
import { memberIdsOfInstances } from '../db/instances';
import type { EventBus } from '../hub/bus';
import { hubGroupNames } from '../hub/methods';
import { parseEtcdZapLine, parsePgJsonLine, type ParsedLogLine } from './engineLogLines';
import { tailOnce } from './tailer';

/** LogsAppended goes out at most this often per instance (DESIGN §8). */
export const logsAppendedIntervalMs = 250;
/** Entries one LogsAppended carries at most; past that the event says how many it skipped. */
export const maxEntriesPerEvent = 500;

interface TailedInstance {
  dir: string;
  type: InstanceType;
}

const tailFormats: Record<InstanceType, { match: RegExp; parse: (line: string) => ParsedLogLine | null; handler: string }> = {
  pg: { match: /\.json$/, parse: (line) => parsePgJsonLine(line), handler: 'postgres' },
  etcd: { match: /^etcd\.log$/, parse: parseEtcdZapLine, handler: 'etcd' },
};

/**
 * The log store's writer: the control plane's own entries (write) and the engines' JSON logs
 * (tailed every `pollMs`), stored first and then announced as LogsAppended, batched per instance.
 */
export class LogService {
  private readonly tailed = new Map<string, TailedInstance>();
  private readonly pending = new Map<string | null, LogEntry[]>();
  private flushTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  /** Flushes run one after another, so LogsAppended keeps the order the entries were stored in. */
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly pollMs: number,
  ) {}

  /** Stores entries and announces them; never throws (a log write must not fail the work it describes). */
  async write(entries: Omit<NewLogEntry, 'timestamp'> & { timestamp?: string }): Promise<void>;
  async write(entries: NewLogEntry[]): Promise<void>;
  async write(input: (Omit<NewLogEntry, 'timestamp'> & { timestamp?: string }) | NewLogEntry[]): Promise<void> {
    const entries = Array.isArray(input) ? input : [{ ...input, timestamp: input.timestamp ?? this.clock().toISOString() }];
    try {
      this.announce(await insertLogEntries(this.db, entries));
    } catch {
      // The store is closing or full; the entry is lost, the operation it describes is not.
    }
  }

  /** Reads this instance's engine logs from now on (offsets persist, so nothing repeats after a restart). */
  tail(instanceId: string, dir: string, type: InstanceType) {
    this.tailed.set(instanceId, { dir, type });
  }

  untail(instanceId: string) {
    this.tailed.delete(instanceId);
    this.pending.delete(instanceId);
  }

  start() {
    if (this.pollTimer) return;
    this.pollTimer = setInterval(() => void this.pollOnce(), this.pollMs);
    this.pollTimer.unref();
  }

  /** One pass over every tailed instance's log folder; overlapping passes are joined, not repeated. */
  pollOnce(): Promise<void> {
    this.polling ??= (async () => {
      for (const [instanceId, { dir, type }] of [...this.tailed]) {
        const format = tailFormats[type];
        try {
          await tailOnce({
            dir,
            match: format.match,
            parse: format.parse,
            offsets: offsetStore(this.db, instanceId),
            onEntries: (lines) =>
              this.write(lines.map((line) => ({ ...line, instanceId, handler: format.handler }))),
          });
        } catch {
          // A folder removed under our feet (instance deleted); the next pass no longer has it.
        }
      }
    })().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  async stop() {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
    await this.polling;
    await this.flush();
  }

  private announce(entries: LogEntry[]) {
    for (const entry of entries) {
      const queue = this.pending.get(entry.instanceId);
      if (queue) queue.push(entry);
      else this.pending.set(entry.instanceId, [entry]);
    }
    if (entries.length > 0 && !this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flush(), logsAppendedIntervalMs);
      this.flushTimer.unref();
    }
  }

  /**
   * JoinLogs(null): one event per flush and receiver with every entry they may see now, so a
   * receiver still gets at most four a second however many instances log: all of them to admins,
   * each member the entries of their groups' instances (the control plane's own: admins only).
   */
  private announceWholeScope(batches: [string | null, LogEntry[]][], members: Map<string, string[]>) {
    const event = (entries: LogEntry[]): LogsAppendedPayload => {
      const ordered = entries.sort((a, b) => a.id - b.id);
      const skipped = Math.max(0, ordered.length - maxEntriesPerEvent);
      return { instanceId: null, entries: ordered.slice(skipped), skipped };
    };
    const group = hubGroupNames.logs(null);
    this.bus.publish({ event: 'LogsAppended', payload: event(batches.flatMap(([, entries]) => entries)), audience: { kind: 'scoped', groups: [group], userIds: [] } });
    const perUser = new Map<string, LogEntry[]>();
    for (const [instanceId, entries] of batches) {
      for (const userId of instanceId === null ? [] : (members.get(instanceId) ?? [])) perUser.set(userId, [...(perUser.get(userId) ?? []), ...entries]);
    }
    for (const [userId, entries] of perUser) {
      this.bus.publish({ event: 'LogsAppended', payload: event(entries), audience: { kind: 'groupMembers', group, userIds: [userId] } });
    }
  }

  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batches = [...this.pending];
    this.pending.clear();
    this.flushing = this.flushing.then(async () => {
      let members: Map<string, string[]>;
      try {
        members = await memberIdsOfInstances(this.db, batches.flatMap(([instanceId]) => (instanceId === null ? [] : [instanceId])));
      } catch {
        // The store is closing: the entries are stored, only their announcement is lost.
        return;
      }
      for (const [instanceId, entries] of batches) {
        const skipped = Math.max(0, entries.length - maxEntriesPerEvent);
        const payload: LogsAppendedPayload = { instanceId, entries: entries.slice(skipped), skipped };
        // Admins and the instance's group members now (the control plane's own entries: admins only),
        // read for every flush rather than trusted from JoinLogs, so a member removed from the group
        // (or an instance moved to another) stops receiving at once. One read covers every instance.
        const userIds = instanceId === null ? [] : (members.get(instanceId) ?? []);
        this.bus.publish({ event: 'LogsAppended', payload, audience: { kind: 'scoped', groups: [hubGroupNames.logs(instanceId)], userIds } });
      }
      this.announceWholeScope(batches, members);
    });
    // One failed announcement must not stop the ones after it.
    this.flushing = this.flushing.catch(() => undefined);
    return this.flushing;
  }
}
