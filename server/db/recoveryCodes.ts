import { randomUUID } from 'node:crypto';
import type { Db } from './schema';

// Two-factor recovery codes, stored as hashes; each works once.

/** Replaces every recovery code of a user with new ones (given as hashes). */
export async function replaceRecoveryCodes(db: Db, userId: string, hashes: string[], now: Date): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await tx
      .insertInto('recovery_codes')
      .values(hashes.map((hash) => ({ id: randomUUID(), user_id: userId, hash, created_at: now.toISOString(), used_at: null })))
      .execute();
  });
}

export async function countUnusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const { count } = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Uses the unused code with this hash; false when there is none (wrong, or already used). */
export async function useRecoveryCode(db: Db, userId: string, hash: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: at.toISOString() })
    .where('user_id', '=', userId)
    .where('hash', '=', hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Drops every recovery code of a user (their two-factor sign-in was reset). */
export async function deleteRecoveryCodes(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}
