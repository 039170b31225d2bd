import type { ClusterSpec } from '../engines/pgCluster';
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Health, HealthCheck, Instance, InstanceStatus, OperationKind } from '../../contracts/instances';
import type { InstanceType } from '../../contracts/instanceValues';
import type { PageOf } from '../../contracts/page';
import type { GroupInstances, InstanceRef } from './groups';
import { contains, escapeLike, knownTotal, offsetOf, pageOf, parseSort, type PageWindow, type SortKey } from './paging';
import type { Database, Db, InstancesTable } from './schema';
import { instanceCount } from './instanceCount';

export type InstanceRow = Selectable<InstancesTable>;

export const instanceSortFieldsDb = ['name', 'createdAt', 'status', 'type', 'health', 'sizeBytes'] as const;
export type InstanceSort = SortKey<(typeof instanceSortFieldsDb)[number]>;

const sortColumns = {
  name: 'instances.name',
  createdAt: 'instances.created_at',
  status: 'instances.status',
  type: 'instances.type',
  health: 'instances.health_level',
  sizeBytes: 'metric_series.size_bytes',
} as const;

/**
 * Why a taken name is refused. Names are unique across all groups (they name folders and roles), so
 * the same words answer whether or not the caller may see the instance holding it: nothing more leaks.
 */
export const instanceNameUnavailable = 'This name is not available.';

export class DuplicateInstanceNameError extends Error {
  constructor(readonly instanceName: string) {
    super(instanceNameUnavailable);
  }
}

/** The columns toInstance reads: what answers select, so that nothing the wire shape lacks is read. */
const instanceColumns = [
  'instances.id',
  'instances.name',
  'instances.type',
  'instances.status',
  'instances.desired_state',
  'instances.status_reason',
  'instances.health_level',
  'instances.health_checks',
  'instances.group_id',
  'instances.engine_version',
  'instances.port',
  'instances.member_ports',
  'instances.cluster',
  'instances.description',
  'instances.created_at',
  'instances.created_by',
  'instances.last_backup_at',
  'instances.version',
  'instances.operation_kind',
  'instances.operation_started_at',
  'instances.host_id',
] as const;
type InstanceColumn = (typeof instanceColumns)[number] extends `instances.${infer C extends keyof InstanceRow}` ? C : never;

/** The row, its group's name and its measured size → the wire shape. */
export function toInstance(
  row: Pick<InstanceRow, InstanceColumn> & { group_name?: string | null; size_bytes?: number | null; host_address?: string | null },
): Instance {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    desiredState: row.desired_state,
    statusReason: row.status_reason,
    health: { level: row.health_level, checks: JSON.parse(row.health_checks) as HealthCheck[] },
    groupId: row.group_id,
    groupName: row.group_name ?? null,
    engineVersion: row.engine_version,
    host: row.host_address ?? '127.0.0.1',
    hostId: row.host_id,
    port: row.port,
    members: 1 + memberPortsOf(row).length,
    description: row.description,
    createdAt: row.created_at,
    createdBy: row.created_by,
    lastBackupAt: row.last_backup_at,
    version: row.version,
    sizeBytes: row.size_bytes ?? null,
    operation: row.operation_kind
      ? { kind: row.operation_kind as OperationKind, startedAt: row.operation_started_at ?? row.created_at }
      : null,
  };
}

/** What toInstance reads, for the instances the query selects: their columns, group name and size. */
function withGroupName(instances: SelectQueryBuilder<Database, 'instances', object>) {
  return instances
    .leftJoin('groups', 'groups.id', 'instances.group_id')
    .leftJoin('metric_series', 'metric_series.instance_id', 'instances.id')
    .leftJoin('hosts', 'hosts.id', 'instances.host_id')
    .select([...instanceColumns, 'groups.name as group_name', 'metric_series.size_bytes as size_bytes', 'hosts.address as host_address']);
}

export async function findInstance(db: Db, id: string): Promise<Instance | undefined> {
  const row = await withGroupName(db.selectFrom('instances')).where('instances.id', '=', id).executeTakeFirst();
  return row && toInstance(row);
}

export async function findInstanceRow(db: Db, id: string): Promise<InstanceRow | undefined> {
  return db.selectFrom('instances').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function allInstanceRows(db: Db): Promise<InstanceRow[]> {
  return db.selectFrom('instances').selectAll().orderBy('created_at').execute();
}

/** The instances of one engine that run now. */
export async function runningInstanceRows(db: Db, type: InstanceType): Promise<InstanceRow[]> {
  return db.selectFrom('instances').selectAll().where('type', '=', type).where('status', '=', 'running').execute();
}

export async function instanceNameTaken(db: Db, name: string): Promise<boolean> {
  return (await db.selectFrom('instances').select('id').where('name', '=', name).executeTakeFirst()) !== undefined;
}

/** Who besides admins may see each instance's events: its group's members, for many instances in one read. */
export async function memberIdsOfInstances(db: Db, instanceIds: string[]): Promise<Map<string, string[]>> {
  const members = new Map(instanceIds.map((id): [string, string[]] => [id, []]));
  if (instanceIds.length === 0) return members;
  const rows = await db
    .selectFrom('instances')
    .innerJoin('group_members', 'group_members.group_id', 'instances.group_id')
    .select(['instances.id as instanceId', 'group_members.user_id as userId'])
    .where('instances.id', 'in', instanceIds)
    .execute();
  for (const row of rows) members.get(row.instanceId)?.push(row.userId);
  return members;
}

export interface InstanceListQuery extends PageWindow {
  sort?: InstanceSort;
  search?: string;
  type?: InstanceType;
  status?: InstanceStatus;
  health?: Health['level'];
  /** A group id, or 'none'. */
  groupId?: string;
  /** The groups the caller may see; null means every instance (admins). */
  visibleGroupIds: string[] | null;
}

export async function listInstances(db: Db, query: InstanceListQuery): Promise<PageOf<Instance>> {
  if (query.visibleGroupIds !== null && query.visibleGroupIds.length === 0) return pageOf(query, 0, []);
  let base = db.selectFrom('instances');
  if (query.visibleGroupIds !== null) base = base.where('instances.group_id', 'in', query.visibleGroupIds);
  if (query.search) {
    const text = query.search.trim().toLowerCase();
    // Names are lower case already; descriptions are compared lower-cased (see `contains`).
    base = base.where((eb) =>
      eb.or([contains('instances.name', text), eb(sql`lower(${sql.ref('instances.description')})`, 'like', `%${escapeLike(text)}%`)]),
    );
  }
  if (query.type) base = base.where('instances.type', '=', query.type);
  if (query.status) base = base.where('instances.status', '=', query.status);
  if (query.health) base = base.where('instances.health_level', '=', query.health);
  if (query.groupId === 'none') base = base.where('instances.group_id', 'is', null);
  else if (query.groupId) base = base.where('instances.group_id', '=', query.groupId);

  const { field, direction } = parseSort(query.sort ?? 'name');
  let page = withGroupName(base).orderBy(sortColumns[field], direction);
  // Names are unique, so they break ties; a sort by name needs no second term (SQLite would sort again for it).
  if (field !== 'name') page = page.orderBy('instances.name', 'asc');
  const rows = await page.limit(query.pageSize).offset(offsetOf(query)).execute();
  const unfiltered = query.visibleGroupIds === null && !query.search && !query.type && !query.status && !query.health && !query.groupId;
  const total =
    knownTotal(query, rows.length) ??
    (unfiltered ? await instanceCount(db) : (await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow()).total);
  return pageOf(query, total, rows.map(toInstance));
}

export async function insertInstance(
  db: Db,
  row: Omit<InstanceRow, 'version' | 'member_ports' | 'cluster' | 'host_id'> & { member_ports?: string | null; cluster?: string | null; host_id?: string | null },
): Promise<void> {
  try {
    await db
      .insertInto('instances')
      .values({ ...row, member_ports: row.member_ports ?? null, cluster: row.cluster ?? null, host_id: row.host_id ?? null, version: 0 })
      .execute();
  } catch (error) {
    if (/UNIQUE constraint failed: instances\.name|instances_name_key/.test(String(error))) {
      throw new DuplicateInstanceNameError(row.name);
    }
    throw error;
  }
}

export type InstanceChange = Partial<Omit<InstanceRow, 'id' | 'created_at' | 'created_by' | 'type' | 'version'>>;

/** Applies a change and counts it in the row's version. */
export async function updateInstanceRow(db: Db, id: string, change: InstanceChange): Promise<void> {
  if (Object.keys(change).length === 0) return;
  await db
    .updateTable('instances')
    .set({ ...change, version: sql<number>`version + 1` })
    .where('id', '=', id)
    .execute();
}

export async function deleteInstanceRow(db: Db, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('config_revisions').where('instance_id', '=', id).execute();
    await trx.deleteFrom('log_offsets').where('instance_id', '=', id).execute();
    await trx.deleteFrom('logs').where('instance_id', '=', id).execute();
    await trx.deleteFrom('instances').where('id', '=', id).execute();
  });
}

/** Every port handed out to an instance (client and peer). */
export async function portsInUse(db: Db): Promise<Set<number>> {
  const rows = await db.selectFrom('instances').select(['port', 'peer_port', 'member_ports', 'cluster']).execute();
  return new Set(
    rows.flatMap((r) => [r.port, ...(r.peer_port === null ? [] : [r.peer_port]), ...memberPortsOf(r).flatMap((m) => [m.port, m.peerPort]), ...clusterPortsOf(r)]),
  );
}

/** A PostgreSQL cluster's read-write and read-only addresses' ports. */
function clusterPortsOf(row: Pick<InstanceRow, 'cluster'>): number[] {
  const spec = clusterSpecOf(row);
  return spec ? [spec.readWritePort, spec.readOnlyPort] : [];
}

/** The PostgreSQL clusters whose leader lock an etcd instance keeps. */
export async function clustersRelyingOn(db: Db, etcdId: string): Promise<Pick<InstanceRow, 'id' | 'name'>[]> {
  // The id is a UUID (no LIKE wildcards); the JSON is read again to be sure of the field.
  const rows = await db.selectFrom('instances').select(['id', 'name', 'cluster']).where('cluster', 'like', `%${etcdId}%`).execute();
  return rows.filter((row) => clusterSpecOf(row)?.dcsInstanceId === etcdId).map(({ id, name }) => ({ id, name }));
}

/** A PostgreSQL cluster's consensus store, addresses and timing; null for every other instance. */
export function clusterSpecOf(row: Pick<InstanceRow, 'cluster'>): ClusterSpec | null {
  return row.cluster ? (JSON.parse(row.cluster) as ClusterSpec) : null;
}

/** The client and peer ports of a clustered instance's members after the first (none for a single member). */
export function memberPortsOf(row: Pick<InstanceRow, 'member_ports'>): { port: number; peerPort: number }[] {
  return row.member_ports ? (JSON.parse(row.member_ports) as { port: number; peerPort: number }[]) : [];
}

/** Creations per day (YYYY-MM-DD) and type in [from, to). */
/** Instances of these groups only; null is every instance (admins). */
type VisibleGroups = string[] | null;

export async function creationsPerDay(
  db: Db,
  from: string,
  to: string,
  type?: InstanceType,
  visibleGroupIds: VisibleGroups = null,
): Promise<{ day: string; type: InstanceType; count: number }[]> {
  if (visibleGroupIds !== null && visibleGroupIds.length === 0) return [];
  let query = db
    .selectFrom('instances')
    .select([sql<string>`substr(created_at, 1, 10)`.as('day'), 'type', (eb) => eb.fn.countAll<number>().as('count')])
    .where('created_at', '>=', from)
    .where('created_at', '<', to);
  if (type) query = query.where('type', '=', type);
  if (visibleGroupIds !== null) query = query.where('group_id', 'in', visibleGroupIds);
  const rows = await query.groupBy([sql`substr(created_at, 1, 10)`, 'type']).execute();
  return rows.map((r) => ({ day: r.day, type: r.type, count: Number(r.count) }));
}

export async function countCreatedBefore(db: Db, before: string, type?: InstanceType, visibleGroupIds: VisibleGroups = null): Promise<number> {
  if (visibleGroupIds !== null && visibleGroupIds.length === 0) return 0;
  let query = db.selectFrom('instances').select((eb) => eb.fn.countAll<number>().as('n')).where('created_at', '<', before);
  if (type) query = query.where('type', '=', type);
  if (visibleGroupIds !== null) query = query.where('group_id', 'in', visibleGroupIds);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** What groups know of instances (server/db/groups.ts), over the instances table. */
export const groupInstancesFromTable: GroupInstances = {
  async groupOfInstance(db, instanceId) {
    const row = await db.selectFrom('instances').select('group_id').where('id', '=', instanceId).executeTakeFirst();
    return row === undefined ? undefined : row.group_id;
  },
  async instanceCountOfGroup(db, groupId) {
    const row = await db
      .selectFrom('instances')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('group_id', '=', groupId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
  async instancesOfGroup(db, groupId, window): Promise<PageOf<InstanceRef>> {
    const base = db.selectFrom('instances').where('group_id', '=', groupId);
    const rows = await base.select(['id', 'name', 'type', 'status']).orderBy('name').limit(window.pageSize).offset(offsetOf(window)).execute();
    const total = knownTotal(window, rows.length) ?? (await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    return pageOf(window, total, rows);
  },
  async moveInstancesOutOfGroup(db, groupId) {
    const result = await db.updateTable('instances').set({ group_id: null }).where('group_id', '=', groupId).executeTakeFirst();
    return Number(result.numUpdatedRows);
  },
};
