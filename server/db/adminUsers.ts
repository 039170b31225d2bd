import { randomUUID } from 'node:crypto';
import type { PageOf } from '../../contracts/page';
import type { Role } from '../../contracts/roles';
import type { User as UserView } from '../../contracts/users';
import { hashPassword } from '../auth/passwords';
import { lockStates, type LockState } from './loginFailures';
import { contains, offsetOf, pageOf, parseSort, type PageWindow, type SortKey } from './paging';
import type { Db } from './schema';
import type { User } from './users';

// What user administration (/admin/users) reads and changes beyond sign-in's own queries in users.ts.

export const userSortFields = ['email', 'createdAt', 'lastLoginAt'] as const;
export type UserSort = SortKey<(typeof userSortFields)[number]>;

const sortColumns = { email: 'email', createdAt: 'created_at', lastLoginAt: 'last_login_at' } as const;

const notLocked: LockState = { lockedUntil: null, failedSignIns: 0 };

/** The administrative view of a user, with their sign-in lock: never the password hash, secret or security stamp. */
export async function userView(db: Db, user: User, now: Date): Promise<UserView> {
  const { id, email, role, emailConfirmed, twoFactorEnabled, disabled, createdAt, lastLoginAt } = user;
  const lock = (await lockStates(db, [id], now)).get(id) ?? notLocked;
  return { id, email, role, emailConfirmed, twoFactorEnabled, disabled, createdAt, lastLoginAt, ...lock };
}

export interface UsersListQuery {
  search?: string;
  role?: Role;
  disabled?: boolean;
  sort: UserSort;
  window: PageWindow;
}

export async function listUsers(db: Db, query: UsersListQuery, now: Date): Promise<PageOf<UserView>> {
  let base = db.selectFrom('users');
  // E-mails are stored lower-cased, so a lower-cased search is case-insensitive on both dialects.
  if (query.search) base = base.where(contains('email', query.search.toLowerCase()));
  if (query.role) base = base.where('role', '=', query.role);
  if (query.disabled !== undefined) base = base.where('disabled', '=', query.disabled ? 1 : 0);

  const { field, direction } = parseSort(query.sort);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base
      .select(['id', 'email', 'role', 'email_confirmed', 'two_factor_enabled', 'disabled', 'created_at', 'last_login_at'])
      // Never signed in counts as earliest, on SQLite and PostgreSQL alike (their defaults differ).
      .orderBy(sortColumns[field], (ob) => (direction === 'asc' ? ob.asc().nullsFirst() : ob.desc().nullsLast()))
      .orderBy('id')
      .limit(query.window.pageSize)
      .offset(offsetOf(query.window))
      .execute(),
  ]);
  const locks = await lockStates(db, rows.map((row) => row.id), now);
  return pageOf(
    query.window,
    total,
    rows.map((row) => ({
      id: row.id,
      email: row.email,
      role: row.role,
      emailConfirmed: row.email_confirmed === 1,
      twoFactorEnabled: row.two_factor_enabled === 1,
      disabled: row.disabled === 1,
      createdAt: row.created_at,
      lastLoginAt: row.last_login_at,
      ...(locks.get(row.id) ?? notLocked),
    })),
  );
}

/** Admins who may still sign in, other than `exceptUserId`. */
export async function countOtherEnabledAdmins(db: Db, exceptUserId: string): Promise<number> {
  const { count } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('role', '=', 'admin')
    .where('disabled', '=', 0)
    .where('id', '!=', exceptUserId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

export async function updateUser(db: Db, id: string, change: { role?: Role; disabled?: boolean }): Promise<void> {
  if (change.role === undefined && change.disabled === undefined) return;
  await db
    .updateTable('users')
    .set({
      ...(change.role !== undefined && { role: change.role }),
      ...(change.disabled !== undefined && { disabled: change.disabled ? 1 : 0 }),
    })
    .where('id', '=', id)
    .execute();
}

/** Sets a new password and a new security stamp, so codes e-mailed for the old credentials stop working. */
export async function setPassword(db: Db, id: string, password: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: await hashPassword(password), security_stamp: randomUUID() })
    .where('id', '=', id)
    .execute();
}
