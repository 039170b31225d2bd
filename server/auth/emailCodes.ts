import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context';
import type { TokenPurpose } from '../db/schema';
import { deleteSpentTokens, deleteUnusedTokens, findUsableToken, insertToken, markTokenUsed, type TokenRow } from '../db/tokens';
import * as users from '../db/users';
import { hashToken, newToken } from './tokens';

// Codes sent by e-mail. Each works once, for the address it was sent to, and only while the user's
// security stamp is the one it was issued under (a password or address change voids it). A password
// reset code is the key to the account, so it lives an hour and only the newest one works.

type Ctx = Pick<AppContext, 'db' | 'clock'>;

export const codeLifetimeMs = 24 * 3600_000;
export const resetCodeLifetimeMs = 3600_000;

/** Purposes where issuing a code voids the user's earlier unused ones. */
const onlyNewest: ReadonlySet<TokenPurpose> = new Set(['reset']);

/** A new base64url code for the user; only its hash is stored. */
export async function issueCode(ctx: Ctx, userId: string, purpose: TokenPurpose, email: string): Promise<string> {
  const user = await users.findById(ctx.db, userId);
  if (!user) throw new Error(`No user ${userId}`);
  const code = newToken();
  const now = ctx.clock();
  await deleteSpentTokens(ctx.db, userId, now);
  if (onlyNewest.has(purpose)) await deleteUnusedTokens(ctx.db, userId, purpose);
  await insertToken(ctx.db, {
    id: randomUUID(),
    user_id: userId,
    purpose,
    hash: hashToken(code),
    email: users.normalizeEmail(email),
    stamp: user.securityStamp,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + (purpose === 'reset' ? resetCodeLifetimeMs : codeLifetimeMs)).toISOString(),
    used_at: null,
  });
  return code;
}

/** The code if it is usable now for this user, purpose and address; it stays unused. */
export async function findCode(
  ctx: Ctx,
  user: users.User,
  purpose: TokenPurpose,
  code: string,
  email: string,
): Promise<TokenRow | undefined> {
  const token = await findUsableToken(ctx.db, { hash: hashToken(code), userId: user.id, purpose, now: ctx.clock() });
  if (!token || token.stamp !== user.securityStamp || token.email !== users.normalizeEmail(email)) return undefined;
  return token;
}

/** Uses a code found by findCode; false when a concurrent request used it first. */
export function useCode(ctx: Ctx, token: TokenRow): Promise<boolean> {
  return markTokenUsed(ctx.db, token.id, ctx.clock());
}

export async function redeemCode(
  ctx: Ctx,
  user: users.User,
  purpose: TokenPurpose,
  code: string,
  email: string,
): Promise<boolean> {
  const token = await findCode(ctx, user, purpose, code, email);
  return !!token && (await useCode(ctx, token));
}
