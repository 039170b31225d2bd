import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Role } from '../../contracts/roles';
import { hashPassword } from '../auth/passwords';
import { isUniqueViolation } from './errors';
import type { Db, UsersTable } from './schema';

export interface User {
  id: string;
  email: string;
  passwordHash: string;
  role: Role;
  emailConfirmed: boolean;
  twoFactorEnabled: boolean;
  twoFactorSecret: string | null;
  /** The authenticator step of the last code accepted; null before the first. */
  twoFactorLastStep: number | null;
  accessFailedCount: number;
  lockoutEnd: string | null;
  disabled: boolean;
  securityStamp: string;
  createdAt: string;
  lastLoginAt: string | null;
}

export class DuplicateEmailError extends Error {
  constructor(email: string) {
    super(`A user with the e-mail ${email} already exists`);
    this.name = 'DuplicateEmailError';
  }
}

export interface NewUser {
  email: string;
  password: string;
  role: Role;
  emailConfirmed?: boolean;
}

/** E-mail addresses are compared case-insensitively by storing them lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    role: row.role,
    emailConfirmed: row.email_confirmed === 1,
    twoFactorEnabled: row.two_factor_enabled === 1,
    twoFactorSecret: row.two_factor_secret,
    twoFactorLastStep: row.two_factor_last_step,
    accessFailedCount: row.access_failed_count,
    lockoutEnd: row.lockout_end,
    disabled: row.disabled === 1,
    securityStamp: row.security_stamp,
    createdAt: row.created_at,
    lastLoginAt: row.last_login_at,
  };
}

export async function findByEmail(db: Db, email: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
  return row && toUser(row);
}

export async function findById(db: Db, id: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

export async function countUsers(db: Db): Promise<number> {
  const { count } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Hashes the password and inserts the user. Throws DuplicateEmailError when the e-mail is taken. */
export async function createUser(db: Db, user: NewUser, now: Date = new Date()): Promise<User> {
  const row: Selectable<UsersTable> = {
    id: randomUUID(),
    email: normalizeEmail(user.email),
    password_hash: await hashPassword(user.password),
    role: user.role,
    email_confirmed: user.emailConfirmed ? 1 : 0,
    two_factor_enabled: 0,
    two_factor_secret: null,
    access_failed_count: 0,
    lockout_end: null,
    disabled: 0,
    security_stamp: randomUUID(),
    created_at: now.toISOString(),
    last_login_at: null,
    two_factor_last_step: null,
  };
  try {
    await db.insertInto('users').values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateEmailError(row.email);
    throw error;
  }
  return toUser(row);
}

/** A successful sign-in clears failures and any expired lockout. */
export async function recordSuccess(db: Db, id: string, at: Date): Promise<void> {
  await db
    .updateTable('users')
    .set({ access_failed_count: 0, lockout_end: null, last_login_at: at.toISOString() })
    .where('id', '=', id)
    .execute();
}

/** Sets two-factor state; a new shared key forgets the last used step, which belonged to the old key. */
export async function setTwoFactor(db: Db, id: string, twoFactor: { enabled: boolean; secret: string | null; keyChanged?: boolean }) {
  await db
    .updateTable('users')
    .set({
      two_factor_enabled: twoFactor.enabled ? 1 : 0,
      two_factor_secret: twoFactor.secret,
      ...(twoFactor.keyChanged && { two_factor_last_step: null }),
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Records that an authenticator code of `step` was used; false when a code of this step or a later
 * one was already accepted (a replay). One conditional update, so two requests racing with the same
 * code cannot both win.
 */
export async function useTwoFactorStep(db: Db, id: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ two_factor_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('two_factor_last_step', 'is', null), eb('two_factor_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setDisabled(db: Db, id: string, disabled: boolean): Promise<void> {
  await db
    .updateTable('users')
    .set({ disabled: disabled ? 1 : 0 })
    .where('id', '=', id)
    .execute();
}

export async function markEmailConfirmed(db: Db, id: string): Promise<void> {
  await db.updateTable('users').set({ email_confirmed: 1 }).where('id', '=', id).execute();
}

/**
 * Changes the address to one the user proved they read (so it is confirmed) and renews the security
 * stamp, so codes sent for the old address stop working. Throws DuplicateEmailError when it is taken.
 */
export async function changeEmail(db: Db, id: string, email: string): Promise<void> {
  try {
    await db
      .updateTable('users')
      .set({ email: normalizeEmail(email), email_confirmed: 1, security_stamp: randomUUID() })
      .where('id', '=', id)
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateEmailError(normalizeEmail(email));
    throw error;
  }
}
