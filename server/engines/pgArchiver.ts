import fs from 'node:fs';
import path from 'node:path';
import type { Client } from 'pg';
import type { HealthCheck } from './engine';

// The archiver of a pg instance as PostgreSQL reports it (pg_stat_archiver, pg_wal/archive_status),
// and what its health says of it.

/** The archiver of a running instance, as pg_stat_archiver and pg_wal/archive_status tell. */
export interface ArchiverState {
  archivedCount: number;
  lastArchivedWal: string | null;
  lastArchivedAt: string | null;
  failedCount: number;
  lastFailedWal: string | null;
  lastFailedAt: string | null;
  /** Where the server writes WAL now, and when that was asked. */
  insertLsn: string;
  at: string;
  archiveTimeoutSeconds: number;
  /** Finished segments not archived yet, and since when the oldest waits. */
  waitingSegments: number;
  oldestWaitingSince: string | null;
  /** Why the instance's stanza could not be made at its last start, or null. */
  stanzaProblem: string | null;
}

/** A duration setting as current_setting shows it (`60s`, `1min`, `0`), in seconds. */
function parseDuration(text: string): number {
  const match = /^(\d+)\s*(ms|s|min|h|d)?$/.exec(text.trim());
  if (!match) return 0;
  const factor = { ms: 0.001, s: 1, min: 60, h: 3600, d: 86400 }[match[2] ?? 's'] ?? 1;
  return Number(match[1]) * factor;
}

/**
 * Health of the archive: error when it fails (the last attempt failed after the last success, or the
 * stanza could not be made), warn when finished WAL waits longer than two archive timeouts.
 */
export function archivingCheck(state: ArchiverState): HealthCheck {
  const name = 'archiving';
  if (state.stanzaProblem) return { name, level: 'error', message: `the WAL archive cannot be used: ${state.stanzaProblem}` };
  const failedLast = state.lastFailedAt !== null && (state.lastArchivedAt === null || state.lastFailedAt > state.lastArchivedAt);
  if (failedLast) return { name, level: 'error', message: `archiving WAL fails (segment ${state.lastFailedWal}): see the instance's log` };
  const limitMs = 2 * Math.max(state.archiveTimeoutSeconds, 1) * 1000;
  if (state.oldestWaitingSince !== null && Date.parse(state.at) - Date.parse(state.oldestWaitingSince) > limitMs) {
    return { name, level: 'warn', message: `archiving lags: ${state.waitingSegments} WAL segment(s) wait, the oldest for over ${Math.round(limitMs / 1000)} s` };
  }
  return { name, level: 'good', message: 'WAL is archived' };
}

/** What the archiver of a running instance says, with the WAL waiting for it and where the server writes now. */
export async function readArchiver(query: <T>(use: (client: Client) => Promise<T>) => Promise<T>, data: string, stanzaProblem: string | null): Promise<ArchiverState> {
  const row = await query(async (c) => {
    const { rows } = await c.query<{
      archived_count: string;
      last_archived_wal: string | null;
      last_archived_time: Date | null;
      failed_count: string;
      last_failed_wal: string | null;
      last_failed_time: Date | null;
      insert_lsn: string;
      now: Date;
      timeout: string;
    }>(
      `select archived_count, last_archived_wal, last_archived_time, failed_count, last_failed_wal, last_failed_time,
              pg_current_wal_insert_lsn()::text as insert_lsn, now(), current_setting('archive_timeout') as timeout
         from pg_stat_archiver`,
    );
    return rows[0];
  });
  // Segments PostgreSQL finished and waits to see archived: their .ready files, the oldest first.
  const status = path.join(data, 'pg_wal', 'archive_status');
  let waiting = 0;
  let oldestWaitingMs: number | null = null;
  for (const name of fs.existsSync(status) ? fs.readdirSync(status) : []) {
    if (!name.endsWith('.ready')) continue;
    waiting += 1;
    const mtime = fs.statSync(path.join(status, name), { throwIfNoEntry: false })?.mtimeMs;
    if (mtime !== undefined) oldestWaitingMs = Math.min(oldestWaitingMs ?? mtime, mtime);
  }
  const toIso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    archivedCount: Number(row.archived_count),
    lastArchivedWal: row.last_archived_wal,
    lastArchivedAt: toIso(row.last_archived_time),
    failedCount: Number(row.failed_count),
    lastFailedWal: row.last_failed_wal,
    lastFailedAt: toIso(row.last_failed_time),
    insertLsn: row.insert_lsn,
    at: row.now.toISOString(),
    archiveTimeoutSeconds: parseDuration(row.timeout),
    waitingSegments: waiting,
    oldestWaitingSince: oldestWaitingMs === null ? null : new Date(oldestWaitingMs).toISOString(),
    stanzaProblem,
  };
}
