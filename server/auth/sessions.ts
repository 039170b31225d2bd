import { randomUUID } from 'node:crypto';
import type { AccessTokenResponse } from '../../contracts/auth';
import type { Role } from '../../contracts/roles';
import type { AppContext } from '../context';
import * as sessions from '../db/sessions';
import type { SessionKind } from '../db/schema';
import { hashToken, newToken } from './tokens';

type Ctx = Pick<AppContext, 'db' | 'clock'>;
/** Ending sessions also closes the hub connections opened with them. */
type HubCtx = Ctx & Pick<AppContext, 'hub'>;

const hour = 3600;
const day = 24 * hour;

/** Lifetimes in seconds. Cookies and refresh tokens match ASP.NET Identity's 14 days; access tokens its hour. */
export const sessionLifetime: Record<SessionKind, number> = { cookie: 14 * day, access: hour, refresh: 14 * day };

// Writing last_seen_at on every request would turn each read into a write; once a minute is plenty.
const touchEverySeconds = 60;

/** Who is calling, as the access plugin resolved it. */
export interface Principal {
  userId: string;
  role: Role;
  sessionId: string;
  via: 'cookie' | 'bearer';
}

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

async function createSession(
  ctx: Ctx,
  userId: string,
  kind: SessionKind,
  persistent: boolean,
  client: ClientInfo,
  familyId: string | null = null,
): Promise<string> {
  const token = newToken();
  const now = ctx.clock();
  await sessions.insertSession(ctx.db, {
    id: hashToken(token),
    user_id: userId,
    kind,
    persistent: persistent ? 1 : 0,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + sessionLifetime[kind] * 1000).toISOString(),
    last_seen_at: now.toISOString(),
    user_agent: client.userAgent?.slice(0, 512) ?? null,
    ip: client.ip,
    family_id: familyId,
    consumed_at: null,
  });
  return token;
}

/** A browser session; the token goes into the session cookie. */
export async function startCookieSession(ctx: Ctx, userId: string, persistent: boolean, client: ClientInfo) {
  const token = await createSession(ctx, userId, 'cookie', persistent, client);
  return { token, maxAgeSeconds: sessionLifetime.cookie };
}

/**
 * Tokens for scripts and the CLI: a short-lived access token and a long-lived refresh token. Tokens
 * descending from one sign-in (through refreshes) form a family, which is revoked as a whole.
 */
export async function issueBearerTokens(
  ctx: Ctx,
  userId: string,
  client: ClientInfo,
  familyId: string = randomUUID(),
): Promise<AccessTokenResponse> {
  const accessToken = await createSession(ctx, userId, 'access', true, client, familyId);
  const refreshToken = await createSession(ctx, userId, 'refresh', true, client, familyId);
  return { tokenType: 'Bearer', accessToken, expiresIn: sessionLifetime.access, refreshToken };
}

export type RefreshResult =
  | { ok: true; userId: string; tokens: AccessTokenResponse }
  | { ok: false; userId: string | null; failure: 'Unknown' | 'Reused' };

/**
 * Exchanges a refresh token for new tokens of the same family; the one presented is used up. A used
 * one presented again means someone kept a copy: the whole family (every access and refresh token
 * of that sign-in) is revoked, so the thief and the owner both have to sign in again.
 */
export async function refreshBearerTokens(ctx: HubCtx, refreshToken: string, client: ClientInfo): Promise<RefreshResult> {
  const now = ctx.clock();
  const session = await sessions.findRefreshSession(ctx.db, hashToken(refreshToken), now);
  if (!session) return { ok: false, userId: null, failure: 'Unknown' };
  const familyId = session.familyId ?? session.id;
  // The conditional update decides between two requests racing with the same token.
  if (session.consumedAt !== null || !(await sessions.consumeRefreshSession(ctx.db, session.id, now))) {
    closeHubConnections(ctx, await sessions.deleteFamily(ctx.db, familyId), 'Your sign-in was revoked.');
    return { ok: false, userId: session.userId, failure: 'Reused' };
  }
  return { ok: true, userId: session.userId, tokens: await issueBearerTokens(ctx, session.userId, client, familyId) };
}

/**
 * The principal a cookie or bearer token stands for, or null when it is unknown, expired or its user
 * is disabled. A bearer token must be an access token: refresh tokens only buy new access tokens.
 */
export async function authenticate(ctx: Ctx, token: string, via: Principal['via']): Promise<Principal | null> {
  const now = ctx.clock();
  const session = await sessions.findActiveSession(ctx.db, hashToken(token), via === 'cookie' ? 'cookie' : 'access', now);
  if (!session) return null;
  if (now.getTime() - new Date(session.lastSeenAt).getTime() > touchEverySeconds * 1000) {
    await sessions.touchSession(ctx.db, session.id, now);
  }
  return { userId: session.userId, role: session.role, sessionId: session.id, via };
}

function closeHubConnections(ctx: HubCtx, sessionIds: readonly string[], reason: string): void {
  for (const id of sessionIds) ctx.hub.closeSession(id, reason);
}

/** Ends one session; for a bearer token, its whole family, so the refresh token dies with it. */
export async function endSession(ctx: HubCtx, sessionId: string, reason: string): Promise<void> {
  const familyId = await sessions.findFamilyOf(ctx.db, sessionId);
  if (familyId) {
    closeHubConnections(ctx, await sessions.deleteFamily(ctx.db, familyId), reason);
  } else {
    await sessions.deleteSession(ctx.db, sessionId);
    closeHubConnections(ctx, [sessionId], reason);
  }
}

/** Ends every session of a user and closes all their hub connections; answers how many sessions ended. */
export async function endAllSessions(ctx: HubCtx, userId: string, reason: string): Promise<number> {
  const ended = await sessions.deleteUserSessions(ctx.db, userId);
  ctx.hub.closeUser(userId, reason);
  return ended.length;
}

/**
 * Ends every session of the caller's user but the caller's own (and, for a bearer token, its family),
 * closing those sessions' hub connections; answers how many ended.
 */
export async function endOtherSessions(ctx: HubCtx, principal: Principal, reason: string): Promise<number> {
  const familyId = await sessions.findFamilyOf(ctx.db, principal.sessionId);
  const ended = await sessions.deleteUserSessions(ctx.db, principal.userId, { sessionId: principal.sessionId, familyId });
  closeHubConnections(ctx, ended, reason);
  return ended.length;
}
