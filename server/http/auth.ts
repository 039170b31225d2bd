import type { FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { hasRole } from '../../contracts/roles';
import { authenticate, type ClientInfo, type Principal } from '../auth/sessions';
import type { AppContext } from '../context';
import type { Db } from '../db/schema';
import { findById } from '../db/users';
import { HttpProblem } from './problems';
import { sessionCookieName } from './sessionCookie';

/** Who may call a route; every route declares one in `config.access`. */
export type Access = 'public' | 'user' | 'admin';
const accessRules: readonly Access[] = ['public', 'user', 'admin'];

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** The signed-in caller, or null when anonymous. Resolved for every routed request. */
    principal: Principal | null;
  }
}

/** onRoute hook: a route without an access rule is a startup error, so none is open by accident. */
export function requireAccessRule(route: RouteOptions): void {
  const access = route.config?.access;
  if (!access || !accessRules.includes(access)) {
    throw new Error(
      `Route ${String(route.method)} ${route.url} must declare config.access: 'public' | 'user' | 'admin'`,
    );
  }
}

const mutatingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

async function resolvePrincipal(ctx: AppContext, request: FastifyRequest): Promise<Principal | null> {
  const authorization = request.headers.authorization;
  // An Authorization header wins over the cookie, and a bad one does not fall back to it.
  if (authorization !== undefined) {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    return token ? authenticate(ctx, token, 'bearer') : null;
  }
  const cookie = request.cookies[sessionCookieName];
  return cookie ? authenticate(ctx, cookie, 'cookie') : null;
}

/**
 * CSRF defence: browsers send Origin on every cross-origin and same-origin POST/PUT/PATCH/DELETE and
 * on every WebSocket opening, so these are refused from a foreign page, and with the session cookie
 * but no Origin too (cross-site WebSocket hijacking included). A bearer token no page sends by itself.
 */
function checkOrigin(request: FastifyRequest, allowedOrigins: readonly string[]): void {
  const webSocket = request.headers.upgrade?.toLowerCase() === 'websocket';
  if (!mutatingMethods.has(request.method) && !webSocket) return;
  const what = webSocket ? 'WebSocket connections' : 'Requests';
  const origin = request.headers.origin;
  if (origin !== undefined && !allowedOrigins.includes(origin)) {
    throw new HttpProblem(403, `${what} from origin ${origin} are not allowed.`);
  }
  if (origin === undefined && request.principal?.via === 'cookie') {
    throw new HttpProblem(403, `${what} made with the session cookie must carry an allowed Origin header.`);
  }
}

function checkAccess(access: Access, principal: Principal | null): void {
  if (access === 'public') return;
  if (!principal) throw new HttpProblem(401, 'Sign in first.');
  if (access === 'admin' && !hasRole(principal, 'admin')) throw new HttpProblem(403, 'Only admins may do this.');
}

/** The caller of a 'user' or 'admin' route, who the access hook has already let in. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new HttpProblem(401, 'Sign in first.');
  return request.principal;
}

/** The caller's e-mail, as recorded on what they create (an instance's createdBy, a revision's author). */
export async function callerEmail(db: Db, request: FastifyRequest): Promise<string | null> {
  return (await findById(db, principalOf(request).userId))?.email ?? null;
}

export function clientInfo(request: FastifyRequest): ClientInfo {
  return { ip: request.ip ?? null, userAgent: request.headers['user-agent'] ?? null };
}

/** Resolves the principal (session cookie or bearer token), then enforces CSRF and the route's access rule. */
export const accessControl = fp<{ ctx: AppContext }>(async (app, { ctx }) => {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    // Only the not-found handler has no rule; it answers 404/405 whoever asks.
    if (!access) return;
    request.principal = await resolvePrincipal(ctx, request);
    checkOrigin(request, ctx.config.allowedOrigins);
    checkAccess(access, request.principal);
  });
});
