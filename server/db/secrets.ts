import { randomBytes } from 'node:crypto';
import type { Db } from './schema';

/**
 * A key every server of a shared store uses alike (signing download links): made by whichever server
 * needs it first, kept in the store, read by the others. 32 random bytes.
 */
export async function sharedSecret(db: Db, name: string): Promise<Buffer> {
  await db
    .insertInto('shared_secrets')
    .values({ name, value: randomBytes(32).toString('base64url'), created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const { value } = await db.selectFrom('shared_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return Buffer.from(value, 'base64url');
}
