import type { Insertable, Selectable } from 'kysely';
import type { Db, TokenPurpose, TokensTable } from './schema';

// E-mailed codes (confirm an address, reset a password, change the address), looked up by hash.

export type TokenRow = Selectable<TokensTable>;

export async function insertToken(db: Db, token: Insertable<TokensTable>): Promise<void> {
  await db.insertInto('tokens').values(token).execute();
}

/** The unused, unexpired code with this hash, issued to this user for this purpose. */
export async function findUsableToken(
  db: Db,
  query: { hash: string; userId: string; purpose: TokenPurpose; now: Date },
): Promise<TokenRow | undefined> {
  return db
    .selectFrom('tokens')
    .selectAll()
    .where('hash', '=', query.hash)
    .where('user_id', '=', query.userId)
    .where('purpose', '=', query.purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', query.now.toISOString())
    .executeTakeFirst();
}

/** Marks a code used; false when another request used it first. */
export async function markTokenUsed(db: Db, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('tokens')
    .set({ used_at: at.toISOString() })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Drops a user's used and expired codes so the table does not grow without bound. */
export async function deleteSpentTokens(db: Db, userId: string, now: Date): Promise<void> {
  await db
    .deleteFrom('tokens')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', now.toISOString())]))
    .execute();
}

/** Drops a user's unused codes of one purpose: a newer code replaces them. */
export async function deleteUnusedTokens(db: Db, userId: string, purpose: TokenPurpose): Promise<void> {
  await db.deleteFrom('tokens').where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
}
