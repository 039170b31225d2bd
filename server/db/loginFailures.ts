import { sql } from 'kysely';
import type { Db } from './schema';

// Failed sign-ins counted per account and client address (the `login_failures` table).

/** When the pair's lockout ends, or null when it is not locked (or the lockout has passed). */
export async function lockoutEnd(db: Db, userId: string, address: string, now: Date): Promise<string | null> {
  const row = await db
    .selectFrom('login_failures')
    .select('lockout_end')
    .where('user_id', '=', userId)
    .where('address', '=', address)
    .executeTakeFirst();
  return row?.lockout_end && row.lockout_end > now.toISOString() ? row.lockout_end : null;
}

/**
 * Counts one failure for the pair; answers the new count. Incremented in SQL so concurrent failures
 * all count. After a lockout has passed, counting starts afresh.
 */
export async function recordFailure(db: Db, userId: string, address: string, now: Date): Promise<number> {
  const at = now.toISOString();
  const lockPassed = sql<boolean>`login_failures.lockout_end <= ${at}`;
  const row = await db
    .insertInto('login_failures')
    .values({ user_id: userId, address, failures: 1, lockout_end: null, updated_at: at })
    .onConflict((oc) =>
      oc.columns(['user_id', 'address']).doUpdateSet({
        failures: sql<number>`case when ${lockPassed} then 1 else login_failures.failures + 1 end`,
        lockout_end: sql<string | null>`case when ${lockPassed} then null else login_failures.lockout_end end`,
        updated_at: at,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return row.failures;
}

/** Locks the pair until `until`; its failures stay counted, so an admin can see why it is locked. */
export async function lockOut(db: Db, userId: string, address: string, until: Date, now: Date): Promise<void> {
  await db
    .updateTable('login_failures')
    .set({ lockout_end: until.toISOString(), updated_at: now.toISOString() })
    .where('user_id', '=', userId)
    .where('address', '=', address)
    .execute();
}

/** Forgets the pair's failures (a successful sign-in from that address). */
export async function clearFailures(db: Db, userId: string, address: string): Promise<void> {
  await db.deleteFrom('login_failures').where('user_id', '=', userId).where('address', '=', address).execute();
}

/** Forgets every failure and lifts every lockout of the account; answers how many addresses were locked. */
export async function clearAllFailures(db: Db, userId: string, now: Date): Promise<number> {
  const locked = await db
    .selectFrom('login_failures')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('lockout_end', '>', now.toISOString())
    .executeTakeFirstOrThrow();
  await db.deleteFrom('login_failures').where('user_id', '=', userId).execute();
  return Number(locked.count);
}

export interface LockState {
  /** When the last of the account's lockouts in force ends; null when none is. */
  lockedUntil: string | null;
  /** Failed sign-ins from every address still counting (a passed lockout's no longer do). */
  failedSignIns: number;
}

/** The lock state of each of these accounts (per-address rows summed up); accounts without failures are absent. */
export async function lockStates(db: Db, userIds: readonly string[], now: Date): Promise<Map<string, LockState>> {
  const states = new Map<string, LockState>();
  if (userIds.length === 0) return states;
  const at = now.toISOString();
  const rows = await db
    .selectFrom('login_failures')
    .select(['user_id', 'failures', 'lockout_end'])
    .where('user_id', 'in', userIds)
    .execute();
  for (const row of rows) {
    const state = states.get(row.user_id) ?? { lockedUntil: null, failedSignIns: 0 };
    const end = row.lockout_end;
    if (end && end > at && (!state.lockedUntil || end > state.lockedUntil)) state.lockedUntil = end;
    if (!end || end > at) state.failedSignIns += row.failures;
    states.set(row.user_id, state);
  }
  return states;
}
