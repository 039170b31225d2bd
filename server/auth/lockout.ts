import { lockout } from '../../contracts/auth';
import * as users from '../db/users';
import type { Db } from '../db/schema';

// contracts `lockout`: maxFailures wrong sign-ins lock the account for `minutes`.

export function isLockedOut(user: Pick<users.User, 'lockoutEnd'>, now: Date): boolean {
  return user.lockoutEnd !== null && new Date(user.lockoutEnd) > now;
}

/** Counts a failed sign-in and locks the account on the last allowed one; answers whether it is now locked. */
export async function countFailure(db: Db, userId: string, now: Date): Promise<boolean> {
  const failures = await users.recordFailure(db, userId);
  if (failures < lockout.maxFailures) return false;
  await users.lockOut(db, userId, new Date(now.getTime() + lockout.minutes * 60_000));
  return true;
}
