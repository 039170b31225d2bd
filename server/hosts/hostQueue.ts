import type { Selectable } from 'kysely';
import { isPostgres } from '../db/postgresStore';
import type { Db, HostOperationsTable } from '../db/schema';

/*
 * The operations waiting for a host's agent, in the store: an API server adds one, the host's agent
 * takes the oldest, runs it and deletes it. Taking one is the only SQL that differs between the
 * stores, so both forms sit here side by side: on PostgreSQL the row is locked with
 * `FOR UPDATE SKIP LOCKED`, so two agent processes of one host (a restart overlapping the old one)
 * never take the same operation; SQLite runs one writing transaction at a time, which is as good.
 */

export type HostOperation = Selectable<HostOperationsTable>;

export const queuedKinds = ['create', 'clone', 'start', 'stop', 'restart', 'reload', 'delete'] as const;
export type QueuedKind = (typeof queuedKinds)[number];

export async function enqueue(db: Db, op: { hostId: string; instanceId: string; kind: QueuedKind; input?: unknown }, now: Date): Promise<void> {
  await db
    .insertInto('host_operations')
    .values({
      host_id: op.hostId,
      instance_id: op.instanceId,
      kind: op.kind,
      input: JSON.stringify(op.input ?? {}),
      created_at: now.toISOString(),
      claimed_by: null,
      claimed_at: null,
    })
    .execute();
}

/** Takes the host's oldest waiting operation for `claimer`; undefined when none waits. */
export function claimNext(db: Db, hostId: string, claimer: string, now: Date): Promise<HostOperation | undefined> {
  return db.transaction().execute(async (trx) => {
    const oldest = trx
      .selectFrom('host_operations')
      .selectAll()
      .where('host_id', '=', hostId)
      .where('claimed_at', 'is', null)
      .orderBy('id')
      .limit(1);
    const op = await (isPostgres(trx) ? oldest.forUpdate().skipLocked() : oldest).executeTakeFirst();
    if (!op) return undefined;
    const claimed = { claimed_by: claimer, claimed_at: now.toISOString() };
    await trx.updateTable('host_operations').set(claimed).where('id', '=', op.id).execute();
    return { ...op, ...claimed };
  });
}

export async function finish(db: Db, id: number): Promise<void> {
  await db.deleteFrom('host_operations').where('id', '=', id).execute();
}

/** Operations an earlier run of this host's agent took and never finished (it stopped or died): removed and answered. */
export async function takeCutOff(db: Db, hostId: string, claimer: string): Promise<HostOperation[]> {
  const cut = await db
    .selectFrom('host_operations')
    .selectAll()
    .where('host_id', '=', hostId)
    .where('claimed_by', 'is not', null)
    .where('claimed_by', '!=', claimer)
    .execute();
  if (cut.length > 0) await db.deleteFrom('host_operations').where('id', 'in', cut.map((op) => op.id)).execute();
  return cut;
}
