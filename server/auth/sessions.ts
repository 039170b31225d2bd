import type { AccessTokenResponse } from '../../contracts/auth';
import type { Role } from '../../contracts/roles';
import type { AppContext } from '../context';
import * as sessions from '../db/sessions';
import type { SessionKind } from '../db/schema';
import { hashToken, newToken } from './tokens';

type Ctx = Pick<AppContext, 'db' | 'clock'>;

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
  });
  return token;
}

/** A browser session; the token goes into the session cookie. */
export async function startCookieSession(ctx: Ctx, userId: string, persistent: boolean, client: ClientInfo) {
  const token = await createSession(ctx, userId, 'cookie', persistent, client);
  return { token, maxAgeSeconds: sessionLifetime.cookie };
}

/** Tokens for scripts and the CLI: a short-lived access token and a long-lived refresh token. */
export async function issueBearerTokens(ctx: Ctx, userId: string, client: ClientInfo): Promise<AccessTokenResponse> {
  const accessToken = await createSession(ctx, userId, 'access', true, client);
  const refreshToken = await createSession(ctx, userId, 'refresh', true, client);
  return { tokenType: 'Bearer', accessToken, expiresIn: sessionLifetime.access, refreshToken };
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

export async function endSession(ctx: Ctx, sessionId: string): Promise<void> {
  await sessions.deleteSession(ctx.db, sessionId);
}
