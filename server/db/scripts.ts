import type { Selectable } from 'kysely';
import type { Script, ScriptChange, ScriptResult, ScriptRun, ScriptRunStatus, ScriptRunSummary } from '../../contracts/scripts';
import { offsetOf, pageOf, type PageWindow } from './paging';
import type { PageOf } from '../../contracts/page';
import type { Db, ScriptRunsTable } from './schema';

// Saved scripts and script runs (DESIGN §5 "Script"). Results and changes are JSON text the server
// parses, so the store needs no JSON functions and stays portable.

export type ScriptRunRow = Selectable<ScriptRunsTable>;
export type ScriptRunChange = Partial<Omit<ScriptRunRow, 'id' | 'instance_id'>>;

export async function findScript(db: Db, instanceId: string): Promise<Script> {
  const row = await db.selectFrom('scripts').selectAll().where('instance_id', '=', instanceId).executeTakeFirst();
  return row ? { script: row.script, updatedAt: row.updated_at, updatedBy: row.updated_by } : { script: '', updatedAt: null, updatedBy: null };
}

export async function saveScript(db: Db, instanceId: string, script: string, at: string, by: string | null): Promise<void> {
  await db
    .insertInto('scripts')
    .values({ instance_id: instanceId, script, updated_at: at, updated_by: by })
    .onConflict((oc) => oc.column('instance_id').doUpdateSet({ script, updated_at: at, updated_by: by }))
    .execute();
}

export async function insertScriptRun(db: Db, row: ScriptRunRow): Promise<void> {
  await db.insertInto('script_runs').values(row).execute();
}

export async function updateScriptRun(db: Db, id: string, change: ScriptRunChange): Promise<void> {
  await db.updateTable('script_runs').set(change).where('id', '=', id).execute();
}

export async function findScriptRunRow(db: Db, id: string): Promise<ScriptRunRow | undefined> {
  return db.selectFrom('script_runs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Runs a server stop cut off: still pending or running in the store. */
export async function unfinishedScriptRuns(db: Db): Promise<ScriptRunRow[]> {
  return db.selectFrom('script_runs').selectAll().where('status', 'in', ['pending', 'running']).execute();
}

const summaryColumns = [
  'id',
  'instance_id',
  'status',
  'phase',
  'source',
  'copied_from',
  'backup_id',
  'started_at',
  'finished_at',
  'ok',
  'created_by',
  'statements',
  'failures',
  'error',
] as const;

/** The instance's runs, newest first; results are not read for the list. */
export async function listScriptRuns(
  db: Db,
  instanceId: string,
  window: PageWindow,
  status?: ScriptRunStatus,
): Promise<PageOf<ScriptRunSummary>> {
  let query = db.selectFrom('script_runs').where('instance_id', '=', instanceId);
  if (status) query = query.where('status', '=', status);
  const [{ n }, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    query.select(summaryColumns).orderBy('started_at', 'desc').orderBy('id', 'desc').limit(window.pageSize).offset(offsetOf(window)).execute(),
  ]);
  return pageOf(window, n, rows.map(toSummary));
}

export function toSummary(row: Pick<ScriptRunRow, (typeof summaryColumns)[number]>): ScriptRunSummary {
  return {
    id: row.id,
    instanceId: row.instance_id,
    status: row.status,
    phase: row.phase,
    source: row.source,
    copiedFrom: row.copied_from,
    backupId: row.backup_id,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: row.finished_at ? Date.parse(row.finished_at) - Date.parse(row.started_at) : null,
    ok: row.ok === null ? null : Boolean(row.ok),
    createdBy: row.created_by,
    statements: row.statements,
    failures: row.failures,
    ...(row.error !== null && { error: row.error }),
  };
}

export function toScriptRun(row: ScriptRunRow): ScriptRun {
  return {
    ...toSummary(row),
    script: row.script,
    continueOnError: Boolean(row.continue_on_error),
    timeoutMs: row.timeout_ms,
    results: row.results ? (JSON.parse(row.results) as ScriptResult[]) : [],
    ...(row.changes !== null && { changes: JSON.parse(row.changes) as ScriptChange[] }),
  };
}
