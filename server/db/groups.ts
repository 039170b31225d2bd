import { randomUUID } from 'node:crypto';
import type { PageOf } from '../../contracts/page';
import { isUniqueViolation } from './errors';
import { contains, offsetOf, pageOf, parseSort, type PageWindow, type SortKey } from './paging';
import type { Db } from './schema';

// Groups of instances and their members (DESIGN §5). A regular user sees a group, and its instances,
// only as one of its members.

export const groupSortFields = ['name', 'createdAt'] as const;
export type GroupSort = SortKey<(typeof groupSortFields)[number]>;
export const memberSortFields = ['email'] as const;
export type MemberSort = SortKey<(typeof memberSortFields)[number]>;

/** A group's limits (DESIGN §10); null is unlimited. */
export interface GroupQuota {
  maxInstances: number | null;
  maxBackupBytes: number | null;
}

/** Process limits of each of the group's instances (DESIGN §11); null is the server's default. */
export interface GroupLimits {
  maxProcesses: number | null;
  maxOpenFiles: number | null;
  maxMemoryBytes: number | null;
}

export const noGroupLimits: GroupLimits = { maxProcesses: null, maxOpenFiles: null, maxMemoryBytes: null };

/** A group as stored, with its member count; the instance count comes from GroupInstances. */
export interface GroupRecord {
  id: string;
  name: string;
  description: string;
  memberCount: number;
  createdAt: string;
  quota: GroupQuota;
  limits: GroupLimits;
}

export interface GroupRef {
  id: string;
  name: string;
}

export interface Member {
  id: string;
  email: string;
  role: string;
}

export class DuplicateGroupNameError extends Error {
  constructor(name: string) {
    super(`A group named ${name} already exists`);
    this.name = 'DuplicateGroupNameError';
  }
}

// ---- What groups need to know about instances ----

/** The smallest view of an instance a group's instance list shows until the instances contract exists. */
export interface InstanceRef {
  id: string;
  name: string;
  type?: 'pg' | 'etcd';
  status?: string;
}

/**
 * Instances belong to at most one group (a nullable `instances.group_id`). The instances feature
 * implements these over its table and passes them to buildApp; until then there are no instances
 * and `noInstancesYet` answers for all of them. Each takes the store (or a transaction) so a group's
 * deletion and the move of its instances commit together.
 */
export interface GroupInstances {
  /** The group holding an instance: undefined when there is no such instance, null when it is in no group. */
  groupOfInstance(db: Db, instanceId: string): Promise<string | null | undefined>;
  instanceCountOfGroup(db: Db, groupId: string): Promise<number>;
  instancesOfGroup(db: Db, groupId: string, window: PageWindow): Promise<PageOf<InstanceRef>>;
  /** Moves every instance of the group to no group; answers how many moved. */
  moveInstancesOutOfGroup(db: Db, groupId: string): Promise<number>;
}

/** No instance exists yet, so none has a group. The instances feature replaces this. */
export async function groupOfInstance(_db: Db, _instanceId: string): Promise<string | null | undefined> {
  return undefined;
}

/** Always 0 until the instances feature counts `instances where group_id = groupId`. */
export async function instanceCountOfGroup(_db: Db, _groupId: string): Promise<number> {
  return 0;
}

/** Always empty until the instances feature lists `instances where group_id = groupId`. */
export async function instancesOfGroup(_db: Db, _groupId: string, window: PageWindow): Promise<PageOf<InstanceRef>> {
  return pageOf(window, 0, []);
}

/** Nothing to move until the instances feature sets `group_id = null` for the group's instances. */
export async function moveInstancesOutOfGroup(_db: Db, _groupId: string): Promise<number> {
  return 0;
}

export const noInstancesYet: GroupInstances = {
  groupOfInstance,
  instanceCountOfGroup,
  instancesOfGroup,
  moveInstancesOutOfGroup,
};

// ---- Groups ----

/** Names are compared case-insensitively through this key. */
export function groupNameKey(name: string): string {
  return name.toLowerCase();
}

const sortColumns = { name: 'groups.name_key', createdAt: 'groups.created_at' } as const;

function groupsWithCounts(db: Db) {
  return db
    .selectFrom('groups')
    .select((eb) => [
      'groups.id as id',
      'groups.name as name',
      'groups.description as description',
      'groups.created_at as createdAt',
      'groups.max_instances as maxInstances',
      'groups.max_backup_bytes as maxBackupBytes',
      'groups.max_processes as maxProcesses',
      'groups.max_open_files as maxOpenFiles',
      'groups.max_memory_bytes as maxMemoryBytes',
      eb
        .selectFrom('group_members')
        .whereRef('group_members.group_id', '=', 'groups.id')
        .select((sub) => sub.fn.countAll<number>().as('count'))
        .as('memberCount'),
    ]);
}

function toRecord(row: {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  memberCount: unknown;
  maxInstances: number | null;
  maxBackupBytes: number | null;
  maxProcesses: number | null;
  maxOpenFiles: number | null;
  maxMemoryBytes: number | null;
}): GroupRecord {
  const { maxInstances, maxBackupBytes, maxProcesses, maxOpenFiles, maxMemoryBytes, ...rest } = row;
  // A PostgreSQL store answers bigint columns as strings.
  const numberOrNull = (value: number | null) => (value === null ? null : Number(value));
  return {
    ...rest,
    memberCount: Number(row.memberCount ?? 0),
    quota: { maxInstances: numberOrNull(maxInstances), maxBackupBytes: numberOrNull(maxBackupBytes) },
    limits: { maxProcesses: numberOrNull(maxProcesses), maxOpenFiles: numberOrNull(maxOpenFiles), maxMemoryBytes: numberOrNull(maxMemoryBytes) },
  };
}

export async function findGroup(db: Db, id: string): Promise<GroupRecord | undefined> {
  const row = await groupsWithCounts(db).where('groups.id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

export interface GroupListQuery {
  /** Only these groups (a regular user's); null for all. */
  ids: string[] | null;
  search?: string;
  sort: GroupSort;
  window: PageWindow;
}

export async function listGroups(db: Db, query: GroupListQuery): Promise<PageOf<GroupRecord>> {
  if (query.ids?.length === 0) return pageOf(query.window, 0, []);
  let base = db.selectFrom('groups');
  if (query.ids) base = base.where('groups.id', 'in', query.ids);
  if (query.search) base = base.where(contains('groups.name_key', groupNameKey(query.search)));

  const { field, direction } = parseSort(query.sort);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    groupsWithCounts(db)
      .where('groups.id', 'in', base.select('groups.id'))
      .orderBy(sortColumns[field], direction)
      .orderBy('groups.id')
      .limit(query.window.pageSize)
      .offset(offsetOf(query.window))
      .execute(),
  ]);
  return pageOf(query.window, total, rows.map(toRecord));
}

/** The unpaged picker list, by name. */
export async function listGroupRefs(db: Db, ids: string[] | null): Promise<GroupRef[]> {
  if (ids?.length === 0) return [];
  let query = db.selectFrom('groups').select(['id', 'name']).orderBy('name_key').orderBy('id');
  if (ids) query = query.where('id', 'in', ids);
  return query.execute();
}

export async function createGroup(
  db: Db,
  group: { name: string; description?: string; quota?: GroupQuota; limits?: GroupLimits },
  now: Date,
): Promise<GroupRecord> {
  const quota = group.quota ?? { maxInstances: null, maxBackupBytes: null };
  const limits = group.limits ?? noGroupLimits;
  const row = {
    id: randomUUID(),
    name: group.name,
    name_key: groupNameKey(group.name),
    description: group.description ?? '',
    created_at: now.toISOString(),
    max_instances: quota.maxInstances,
    max_backup_bytes: quota.maxBackupBytes,
    ...limitColumns(limits),
  };
  try {
    await db.insertInto('groups').values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateGroupNameError(group.name);
    throw error;
  }
  return { id: row.id, name: row.name, description: row.description, memberCount: 0, createdAt: row.created_at, quota, limits };
}

function limitColumns(limits: GroupLimits) {
  return { max_processes: limits.maxProcesses, max_open_files: limits.maxOpenFiles, max_memory_bytes: limits.maxMemoryBytes };
}

/** Renames and/or re-describes a group (an absent description, quota or limits stay); false when there is no such group. */
export async function updateGroup(
  db: Db,
  id: string,
  change: { name: string; description?: string; quota?: GroupQuota; limits?: GroupLimits },
): Promise<boolean> {
  try {
    const result = await db
      .updateTable('groups')
      .set({
        name: change.name,
        name_key: groupNameKey(change.name),
        ...(change.description !== undefined && { description: change.description }),
        ...(change.quota !== undefined && { max_instances: change.quota.maxInstances, max_backup_bytes: change.quota.maxBackupBytes }),
        ...(change.limits !== undefined && limitColumns(change.limits)),
      })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateGroupNameError(change.name);
    throw error;
  }
}

/** Deletes the group and its memberships; false when there is no such group. */
export async function deleteGroup(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('groups').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// ---- Quotas ----

/** How much of its quota a group uses: its instances, and the bytes of their backups kept in storage. */
export async function groupUsage(db: Db, groupId: string): Promise<{ instances: number; backupBytes: number }> {
  const [instances, bytes] = await Promise.all([
    db.selectFrom('instances').where('group_id', '=', groupId).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    db
      .selectFrom('backups')
      .where('storage_key', 'is not', null)
      .where('instance_id', 'in', db.selectFrom('instances').select('id').where('group_id', '=', groupId))
      .select((eb) => eb.fn.sum<number>('size_bytes').as('bytes'))
      .executeTakeFirstOrThrow(),
  ]);
  return { instances: Number(instances.n), backupBytes: Number(bytes.bytes ?? 0) };
}

/** The ids of a group's instances: each keeps the group's process limits. */
export async function instanceIdsOfGroup(db: Db, groupId: string): Promise<string[]> {
  return (await db.selectFrom('instances').select('id').where('group_id', '=', groupId).execute()).map((row) => row.id);
}

// ---- Members ----

export async function isMember(db: Db, groupId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('group_members')
    .select('user_id')
    .where('group_id', '=', groupId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function groupIdsOfUser(db: Db, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('group_members').select('group_id').where('user_id', '=', userId).execute();
  return rows.map((row) => row.group_id);
}

/** The groups a user belongs to, by name (for the profile). */
export async function groupsOfUser(db: Db, userId: string): Promise<GroupRef[]> {
  return db
    .selectFrom('groups')
    .innerJoin('group_members', 'group_members.group_id', 'groups.id')
    .select(['groups.id as id', 'groups.name as name'])
    .where('group_members.user_id', '=', userId)
    .orderBy('groups.name_key')
    .execute();
}

export interface UserListQuery {
  search?: string;
  sort: MemberSort;
  window: PageWindow;
}

/** The ids of a group's members (none for no group): who, besides admins, may see its instances' events. */
export async function memberIdsOfGroup(db: Db, groupId: string | null): Promise<string[]> {
  if (!groupId) return [];
  return (await db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).execute()).map((m) => m.user_id);
}

/** Members (or, with `members: false`, users who are not members) of a group, paged. */
async function listUsersByMembership(db: Db, groupId: string, members: boolean, query: UserListQuery): Promise<PageOf<Member>> {
  const memberIds = db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId);
  let base = db.selectFrom('users').where('users.id', members ? 'in' : 'not in', memberIds);
  // E-mails are stored lower-cased.
  if (query.search) base = base.where(contains('users.email', query.search.toLowerCase()));

  const { direction } = parseSort(query.sort);
  const [{ total }, items] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base
      .select(['users.id as id', 'users.email as email', 'users.role as role'])
      .orderBy('users.email', direction)
      .limit(query.window.pageSize)
      .offset(offsetOf(query.window))
      .execute(),
  ]);
  return pageOf(query.window, total, items);
}

export function listMembers(db: Db, groupId: string, query: UserListQuery): Promise<PageOf<Member>> {
  return listUsersByMembership(db, groupId, true, query);
}

export function listNonMembers(db: Db, groupId: string, query: UserListQuery): Promise<PageOf<Member>> {
  return listUsersByMembership(db, groupId, false, query);
}

/** Which of these ids name no user. */
export async function unknownUserIds(db: Db, userIds: string[]): Promise<string[]> {
  const rows = await db.selectFrom('users').select('id').where('id', 'in', userIds).execute();
  const known = new Set(rows.map((row) => row.id));
  return userIds.filter((id) => !known.has(id));
}

/** Adds users to a group; existing members stay as they are. Answers the ids newly added. */
export async function addMembers(db: Db, groupId: string, userIds: string[], now: Date): Promise<string[]> {
  const rows = await db
    .insertInto('group_members')
    .values(userIds.map((user_id) => ({ group_id: groupId, user_id, added_at: now.toISOString() })))
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .returning('user_id')
    .execute();
  return rows.map((row) => row.user_id);
}

/** false when the user was not a member. */
export async function removeMember(db: Db, groupId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('group_members')
    .where('group_id', '=', groupId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
