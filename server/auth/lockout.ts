import { lockout } from '../../contracts/auth';
import * as failures from '../db/loginFailures';
import type { Db } from '../db/schema';
import type { ClientInfo } from './sessions';

// contracts `lockout`: maxFailures wrong sign-ins lock the account for `minutes` — for the client
// address they came from only, so one client guessing cannot lock the owner (or an admin) out everywhere.

/** The key a client's failures are counted under; clients without a known address share one. */
function addressOf(client: ClientInfo): string {
  return client.ip ?? '';
}

export async function isLockedOut(db: Db, userId: string, client: ClientInfo, now: Date): Promise<boolean> {
  return (await failures.lockoutEnd(db, userId, addressOf(client), now)) !== null;
}

/** Counts a failed sign-in from the client and locks on the last allowed one; answers whether it is now locked. */
export async function countFailure(db: Db, userId: string, client: ClientInfo, now: Date): Promise<boolean> {
  const count = await failures.recordFailure(db, userId, addressOf(client), now);
  if (count < lockout.maxFailures) return false;
  await failures.lockOut(db, userId, addressOf(client), new Date(now.getTime() + lockout.minutes * 60_000), now);
  return true;
}

/** A successful sign-in forgets the failures from that client. */
export function forgetFailures(db: Db, userId: string, client: ClientInfo): Promise<void> {
  return failures.clearFailures(db, userId, addressOf(client));
}

/** Lifts every lockout of the account (a password reset, an admin's unlock); answers how many clients were locked. */
export function unlockEverywhere(db: Db, userId: string, now: Date): Promise<number> {
  return failures.clearAllFailures(db, userId, now);
}
