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

/** Counts one failure for the pair; answers the new count. Incremented in SQL so concurrent failures all count. */
export async function recordFailure(db: Db, userId: string, address: string, now: Date): Promise<number> {
  const row = await db
    .insertInto('login_failures')
    .values({ user_id: userId, address, failures: 1, lockout_end: null, updated_at: now.toISOString() })
    .onConflict((oc) =>
      oc.columns(['user_id', 'address']).doUpdateSet({
        failures: sql<number>`login_failures.failures + 1`,
        updated_at: now.toISOString(),
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return row.failures;
}

/** Locks the pair until `until` and starts counting its failures afresh. */
export async function lockOut(db: Db, userId: string, address: string, until: Date, now: Date): Promise<void> {
  await db
    .updateTable('login_failures')
    .set({ failures: 0, lockout_end: until.toISOString(), updated_at: now.toISOString() })
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
