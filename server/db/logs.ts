import type { Selectable } from 'kysely';
import type { LogEntry, LogLevel } from '../../contracts/logs';
import type { OffsetStore } from '../logs/tailer';
import { escapeLike, like } from './paging';
import type { Db, LogsTable } from './schema';

export interface NewLogEntry {
  timestamp: string;
  level: LogLevel;
  instanceId: string | null;
  handler: string;
  message: string;
  properties?: Record<string, unknown>;
}

function toEntry(row: Selectable<LogsTable>): LogEntry {
  return {
    id: row.id,
    timestamp: row.timestamp,
    level: row.level,
    instanceId: row.instance_id,
    handler: row.handler,
    message: row.message,
    properties: JSON.parse(row.properties) as Record<string, unknown>,
  };
}

/** Stores entries in one statement per chunk and answers them with their ids, in order. */
export async function insertLogEntries(db: Db, entries: NewLogEntry[]): Promise<LogEntry[]> {
  const stored: LogEntry[] = [];
  // SQLite binds at most 32766 variables; seven columns a row.
  for (let start = 0; start < entries.length; start += 1000) {
    const chunk = entries.slice(start, start + 1000);
    const rows = await db
      .insertInto('logs')
      .values(
        chunk.map((e) => ({
          timestamp: e.timestamp,
          level: e.level,
          instance_id: e.instanceId,
          handler: e.handler,
          message: e.message,
          properties: JSON.stringify(e.properties ?? {}),
        })),
      )
      .returningAll()
      .execute();
    stored.push(...rows.map(toEntry));
  }
  return stored;
}

export interface LogQuery {
  /** An instance's entries, or null for the control plane's own. */
  instanceId: string | null;
  levels?: LogLevel[];
  handler?: string;
  search?: string;
  from?: string;
  to?: string;
  /** Only entries with a smaller id (older). */
  cursor?: number;
  limit: number;
}

/** Newest first; `nextCursor` continues with older entries. */
export async function queryLogs(db: Db, query: LogQuery): Promise<{ items: LogEntry[]; nextCursor: number | null }> {
  let q = db.selectFrom('logs').selectAll();
  q = query.instanceId === null ? q.where('instance_id', 'is', null) : q.where('instance_id', '=', query.instanceId);
  if (query.levels && query.levels.length > 0) q = q.where('level', 'in', query.levels);
  if (query.handler) q = q.where('handler', '=', query.handler);
  if (query.search) q = q.where(like('message', `%${escapeLike(query.search)}%`));
  if (query.from) q = q.where('timestamp', '>=', query.from);
  if (query.to) q = q.where('timestamp', '<=', query.to);
  if (query.cursor) q = q.where('id', '<', query.cursor);
  const rows = await q.orderBy('id', 'desc').limit(query.limit + 1).execute();
  const items = rows.slice(0, query.limit).map(toEntry);
  return { items, nextCursor: rows.length > query.limit ? items[items.length - 1].id : null };
}

export async function uniqueHandlers(db: Db, instanceId: string | null): Promise<string[]> {
  let q = db.selectFrom('logs').select('handler').distinct();
  q = instanceId === null ? q.where('instance_id', 'is', null) : q.where('instance_id', '=', instanceId);
  return (await q.orderBy('handler').execute()).map((r) => r.handler);
}

/** Where tailing stopped in each of an instance's log files. */
export function offsetStore(db: Db, instanceId: string): OffsetStore {
  return {
    async get(file) {
      const row = await db.selectFrom('log_offsets').select('offset').where('file', '=', file).executeTakeFirst();
      return row?.offset ?? 0;
    },
    async set(file, offset) {
      await db
        .insertInto('log_offsets')
        .values({ file, instance_id: instanceId, offset })
        .onConflict((oc) => oc.column('file').doUpdateSet({ offset }))
        .execute();
    },
  };
}
