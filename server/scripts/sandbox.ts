import fs from 'node:fs';
import path from 'node:path';
import type { BackupContents } from '../../contracts/backups';
import { pgDefaultDatabase } from '../../contracts/databases';
import type { ScriptChange, ScriptCopyKind } from '../../contracts/scripts';
import type { BackupService } from '../backups/backupService';
import { backupsOfInstance, findBackupRow } from '../db/backups';
import { findInstanceRow, type InstanceRow } from '../db/instances';
import type { Db } from '../db/schema';
import type { InstanceRuntime } from '../engines/engine';
import { HttpProblem } from '../http/problems';
import type { InstanceService } from '../instances/instanceService';

// A script's sandbox: its name, what fills it, and what it tells about itself afterwards.

export interface SandboxDeps {
  db: Db;
  instances: InstanceService;
  backups: BackupService;
}

/** What a sandbox was made from, with the row counts of its default database when already known. */
export interface Prepared {
  copiedFrom: ScriptCopyKind;
  backupId: string | null;
  rows?: Record<string, number>;
}

/**
 * The sandbox's scratch name: short, because PostgreSQL's socket path (…/.scratch-pg-<name>/run/.s.PGSQL.<port>)
 * must stay within the 107 bytes a Unix socket address holds; unique among the runs under way.
 */
export const sandboxName = (runId: string) => runId.replace(/-/g, '').slice(0, 12);

/** Why a run on the newest backup cannot start on an instance that has none, and what to ask for instead. */
export const noBackupText =
  "The instance has no backup to copy, so the script would run on an empty database. Choose source 'live' for a copy of the live instance, or source 'empty' for an empty instance.";

/** 409 for a run on the newest backup of an instance that has none. */
export async function checkHasBackup(db: Db, instanceId: string): Promise<void> {
  if (!(await newestBackup(db, instanceId))) throw new HttpProblem(409, noBackupText, { title: 'No backup to copy' });
}

/**
 * Fills the sandbox and leaves it running: from a backup (the newest succeeded database backup, or
 * the chosen one; what its restore left out goes to the instance's log, naming the run), a live
 * copy (pg_basebackup or an etcd snapshot of the running instance, a copy of a stopped one's
 * files; an instance never initialized has nothing to copy), or empty when asked for.
 */
export async function prepareSandbox(deps: SandboxDeps, instance: InstanceRow, source: string, rt: InstanceRuntime, runId: string): Promise<Prepared> {
  const engine = deps.instances.engine(instance.type);
  const backupId = source === 'latest-backup' ? await newestBackup(deps.db, instance.id) : source === 'live' || source === 'empty' ? null : source;
  // The last backup was deleted after the run was accepted: still never an empty copy in its place.
  if (source === 'latest-backup' && !backupId) throw new Error(noBackupText);
  if (backupId) {
    await deps.backups.restoreInto(backupId, rt, {}, { instanceId: instance.id, properties: { runId } });
    // A backup that counted every table's rows exactly says what the sandbox now holds; one that
    // recorded estimates does not, and the run counts them itself.
    const contents = (await findBackupRow(deps.db, backupId))?.contents;
    const recorded = contents ? (JSON.parse(contents) as BackupContents).databases?.find((d) => d.name === pgDefaultDatabase) : undefined;
    return { copiedFrom: 'backup', backupId, rows: recorded && !recorded.rowsEstimated ? recorded.rows : undefined };
  }
  const current = (await findInstanceRow(deps.db, instance.id)) ?? instance;
  if (source === 'live' && current.status !== 'unInitialized') {
    await engine.clone(deps.instances.runtime(current), rt);
    return { copiedFrom: 'live', backupId: null };
  }
  await engine.initialize(rt);
  return { copiedFrom: 'empty', backupId: null };
}

async function newestBackup(db: Db, instanceId: string): Promise<string | null> {
  const rows = await backupsOfInstance(db, instanceId, 'database');
  const succeeded = rows.filter((r) => r.status === 'succeeded' && r.storage_key).sort((a, b) => b.started_at.localeCompare(a.started_at));
  return succeeded[0]?.id ?? null;
}

/** The last few messages of the newest log file in `dir` (JSON lines give their message), for an error. */
export function lastLogMessages(dir: string): string[] {
  try {
    const newest = fs
      .readdirSync(dir)
      .map((name) => path.join(dir, name))
      .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
    if (!newest) return [];
    const lines = fs.readFileSync(newest, 'utf8').trim().split('\n').slice(-3);
    return lines.map((line) => {
      try {
        const entry = JSON.parse(line) as { message?: string; msg?: string; error_severity?: string };
        return [entry.error_severity, entry.message ?? entry.msg ?? line].filter(Boolean).join(': ');
      } catch {
        return line;
      }
    });
  } catch {
    return [];
  }
}

/** Row counts before and after, per table: tables the script made count 0 before, tables it dropped 0 after. */
export function diffCounts(before: Record<string, number>, after: Record<string, number>): ScriptChange[] {
  const tables = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return tables.map((table) => ({ table, before: before[table] ?? 0, after: after[table] ?? 0 }));
}
