import type { ConfigChange, ConfigRevision } from '../../contracts/instances';
import type { PageOf } from '../../contracts/page';
import { offsetOf, pageOf, type PageWindow } from '../db/paging';
import type { Db } from '../db/schema';

// Every saved configuration change is a revision (DESIGN §5): who, when, what changed, and the
// whole set of values saved through the console as of then, so any revision can be restored.

export async function latestRevision(db: Db, instanceId: string) {
  return db
    .selectFrom('config_revisions')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .orderBy('revision', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The values saved through the console as of a revision (the newest when none is named); null when there is no such revision. */
export async function revisionParameters(db: Db, instanceId: string, revision?: number): Promise<Record<string, string>>;
export async function revisionParameters(db: Db, instanceId: string, revision: number): Promise<Record<string, string> | null>;
export async function revisionParameters(db: Db, instanceId: string, revision?: number): Promise<Record<string, string> | null> {
  const row =
    revision === undefined
      ? await latestRevision(db, instanceId)
      : await db
          .selectFrom('config_revisions')
          .selectAll()
          .where('instance_id', '=', instanceId)
          .where('revision', '=', revision)
          .executeTakeFirst();
  if (!row) return revision === undefined ? {} : null;
  return JSON.parse(row.parameters) as Record<string, string>;
}

/** Saves `changes` (with their previous values) as the next revision; answers its number. */
export async function recordRevision(
  db: Db,
  instanceId: string,
  author: string | null,
  at: Date,
  changes: Record<string, string>,
  previous: Record<string, string | null>,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const latest = await latestRevision(trx, instanceId);
    const parameters = { ...(latest ? (JSON.parse(latest.parameters) as Record<string, string>) : {}), ...changes };
    const list: ConfigChange[] = Object.entries(changes).map(([name, to]) => ({ name, from: Object.hasOwn(previous, name) ? previous[name] : null, to }));
    const revision = (latest?.revision ?? 0) + 1;
    await trx
      .insertInto('config_revisions')
      .values({
        instance_id: instanceId,
        revision,
        author,
        created_at: at.toISOString(),
        changes: JSON.stringify(list),
        parameters: JSON.stringify(parameters),
      })
      .execute();
    return revision;
  });
}

export async function listRevisions(db: Db, instanceId: string, window: PageWindow): Promise<PageOf<ConfigRevision>> {
  const base = db.selectFrom('config_revisions').where('instance_id', '=', instanceId);
  const [{ n }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('revision', 'desc').limit(window.pageSize).offset(offsetOf(window)).execute(),
  ]);
  return pageOf(
    window,
    n,
    rows.map((row) => ({
      revision: row.revision,
      author: row.author,
      createdAt: row.created_at,
      changes: JSON.parse(row.changes) as ConfigChange[],
      parameters: JSON.parse(row.parameters) as Record<string, string>,
    })),
  );
}
