import { sql, type SelectQueryBuilder } from 'kysely';
import { healthLevels, instanceStatuses, instanceTypes } from '../../contracts/instanceValues';
import type { Statistics } from '../../contracts/statistics';
import { memberPortsOf } from '../db/instances';
import type { Database, Db } from '../db/schema';

// GET /api/statistics and StatisticsChanged (DESIGN §10): the figures of one scope, every count a
// grouped query over an index or a running total, so they can be computed every second.

/** Whose figures: everything (admins, null) or the instances, backups and logs of these groups. */
export type StatisticsScope = { groupIds: string[] | null };

const dayMs = 86_400_000;
const zeros = <const T extends string>(keys: readonly T[]) => Object.fromEntries(keys.map((key) => [key, 0])) as Record<T, number>;

export async function computeStatistics(db: Db, { groupIds }: StatisticsScope, now: Date): Promise<Statistics> {
  const since = new Date(now.getTime() - dayMs).toISOString();
  const none = groupIds !== null && groupIds.length === 0;
  const instanceIds = none
    ? []
    : (await (groupIds === null ? db.selectFrom('instances') : db.selectFrom('instances').where('group_id', 'in', groupIds)).select('id').execute()).map(
        (row) => row.id,
      );
  const [instances, backups, groups, users, logs] = await Promise.all([
    instanceFigures(db, groupIds, none),
    backupFigures(db, groupIds, none, since),
    groupIds === null ? count(db.selectFrom('groups')) : Promise.resolve(groupIds.length),
    groupIds === null
      ? count(db.selectFrom('users'))
      : none
        ? Promise.resolve(0)
        : db
            .selectFrom('group_members')
            .where('group_id', 'in', groupIds)
            .select(sql<number>`count(distinct user_id)`.as('n'))
            .executeTakeFirstOrThrow()
            .then((row) => Number(row.n)),
    logFigures(db, groupIds === null ? null : instanceIds, since),
  ]);
  return { instances: instances.figures, backups, groups, users, logs, operationsRunning: instances.operations, generatedAt: now.toISOString() };
}

async function count<T extends keyof Database>(query: SelectQueryBuilder<Database, T, object>): Promise<number> {
  const row = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function instanceFigures(db: Db, groupIds: string[] | null, none: boolean) {
  const figures: Statistics['instances'] = {
    total: 0,
    byStatus: zeros(instanceStatuses),
    byType: zeros(instanceTypes),
    byHealth: zeros(healthLevels),
    sizeBytes: 0,
    clusters: 0,
    members: 0,
  };
  let operations = 0;
  if (none) return { figures, operations };
  let query = db
    .selectFrom('instances')
    .leftJoin('metric_series', 'metric_series.instance_id', 'instances.id')
    .select((eb) => [
      'instances.status',
      'instances.type',
      'instances.health_level',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('metric_series.size_bytes').as('bytes'),
      eb.fn.count<number>('instances.operation_kind').as('operations'),
    ])
    .groupBy(['instances.status', 'instances.type', 'instances.health_level']);
  if (groupIds !== null) query = query.where('instances.group_id', 'in', groupIds);
  for (const row of await query.execute()) {
    const n = Number(row.n);
    figures.total += n;
    figures.byStatus[row.status] += n;
    figures.byType[row.type] += n;
    figures.byHealth[row.health_level] += n;
    figures.sizeBytes += Number(row.bytes ?? 0);
    operations += Number(row.operations);
  }
  // A cluster's members after the first are kept as a JSON list of their ports.
  let clustered = db.selectFrom('instances').where('member_ports', 'is not', null).select('member_ports');
  if (groupIds !== null) clustered = clustered.where('group_id', 'in', groupIds);
  const extra = (await clustered.execute()).map((row) => memberPortsOf(row).length).filter((n) => n > 0);
  figures.clusters = extra.length;
  figures.members = figures.total + extra.reduce((sum, n) => sum + n, 0);
  return { figures, operations };
}

async function backupFigures(db: Db, groupIds: string[] | null, none: boolean, since: string): Promise<Statistics['backups']> {
  if (none) return { total: 0, failed24h: 0, storageBytes: 0, lastSucceededAt: null };
  let query = db.selectFrom('backups');
  // Admins also count the kept backups of deleted instances; a group sees its instances' backups.
  if (groupIds !== null) query = query.where('backups.instance_id', 'in', db.selectFrom('instances').select('id').where('group_id', 'in', groupIds));
  const row = await query
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.sum<number>(eb.case().when(eb.and([eb('status', '=', 'failed'), eb('started_at', '>=', since)])).then(1).else(0).end()).as('failed'),
      eb.fn.sum<number>(eb.case().when('storage_key', 'is not', null).then(eb.ref('size_bytes')).else(0).end()).as('bytes'),
      eb.fn.max(eb.case().when('status', '=', 'succeeded').then(eb.ref('finished_at')).end()).as('lastSucceededAt'),
    ])
    .executeTakeFirstOrThrow();
  return {
    total: Number(row.total),
    failed24h: Number(row.failed ?? 0),
    storageBytes: Number(row.bytes ?? 0),
    lastSucceededAt: (row.lastSucceededAt as string | null) ?? null,
  };
}

/** From the running totals; errors walk the (instance, level, time) index, errors being few. */
async function logFigures(db: Db, instanceIds: string[] | null, since: string): Promise<Statistics['logs']> {
  if (instanceIds !== null && instanceIds.length === 0) return { entries: 0, bytes: 0, errors24h: 0 };
  let totals = db.selectFrom('log_totals').select((eb) => [eb.fn.sum<number>('entries').as('entries'), eb.fn.sum<number>('bytes').as('bytes')]);
  if (instanceIds !== null) totals = totals.where('scope', 'in', instanceIds);
  const errors = (ids: string[] | null) => {
    let query = db.selectFrom('logs').where('level', 'in', ['error', 'fatal']).where('timestamp', '>=', since);
    query = ids === null ? query.where('instance_id', 'is', null) : query.where('instance_id', 'in', ids);
    return count(query);
  };
  // Admins: every instance's entries plus the control plane's own.
  const ids = instanceIds ?? (await db.selectFrom('instances').select('id').execute()).map((row) => row.id);
  const [sums, instanceErrors, ownErrors] = await Promise.all([
    totals.executeTakeFirstOrThrow(),
    ids.length === 0 ? Promise.resolve(0) : errors(ids),
    instanceIds === null ? errors(null) : Promise.resolve(0),
  ]);
  return { entries: Number(sums.entries ?? 0), bytes: Number(sums.bytes ?? 0), errors24h: instanceErrors + ownErrors };
}
