import { randomInt } from 'node:crypto';
import type { AppContext } from '../context';
import { countUnusedRecoveryCodes, replaceRecoveryCodes, useRecoveryCode } from '../db/recoveryCodes';
import { hashToken } from './tokens';

// Two-factor recovery codes as Identity makes them: ten of them, XXXXX-XXXXX from an alphabet without
// look-alikes (≈ 47 bits each), shown once and stored hashed.

type Ctx = Pick<AppContext, 'db' | 'clock'>;

export const recoveryCodeCount = 10;
const alphabet = '23456789BCDFGHJKMNPQRTVWXY';

function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => alphabet[randomInt(alphabet.length)]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

/** Case, spaces and the dash do not matter when a code is typed back. */
function hashRecoveryCode(code: string): string {
  return hashToken(code.toUpperCase().replace(/[\s-]/g, ''));
}

/** Replaces the user's recovery codes with new ones and answers them: the only time they are readable. */
export async function newRecoveryCodes(ctx: Ctx, userId: string): Promise<string[]> {
  const codes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
  await replaceRecoveryCodes(ctx.db, userId, codes.map(hashRecoveryCode), ctx.clock());
  return codes;
}

/** Uses one of the user's unused codes; false when the code is wrong or already used. */
export function redeemRecoveryCode(ctx: Ctx, userId: string, code: string): Promise<boolean> {
  return useRecoveryCode(ctx.db, userId, hashRecoveryCode(code), ctx.clock());
}

export function recoveryCodesLeft(ctx: Pick<AppContext, 'db'>, userId: string): Promise<number> {
  return countUnusedRecoveryCodes(ctx.db, userId);
}
