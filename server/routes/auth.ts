import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { AccessTokenResponse, CurrentUser, LoginQuery, LoginRequest } from '../../contracts/auth';
import { Problem } from '../../contracts/problem';
import { issueBearerTokens, startCookieSession } from '../auth/sessions';
import { signIn, signOut } from '../auth/signIn';
import type { AppContext } from '../context';
import * as users from '../db/users';
import { clientInfo, principalOf } from '../http/auth';
import { HttpProblem } from '../http/problems';
import { clearSessionCookie, setSessionCookie } from '../http/sessionCookie';

const tags = ['auth'];
const Empty = Type.Object({}, { additionalProperties: false });

/** Sign-in core of /auth (DESIGN §7), shaped like ASP.NET Core Identity's MapIdentityApi. */
export const authRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/login',
    {
      // The per-account lockout stops guessing one password; the per-IP limit stops spraying many accounts.
      config: { access: 'public', rateLimit: { max: ctx.config.loginRateLimit, timeWindow: 60_000 } },
      schema: {
        tags,
        summary: 'Sign in with a cookie (useCookies / useSessionCookies) or for bearer tokens',
        querystring: LoginQuery,
        body: LoginRequest,
        response: { 200: AccessTokenResponse, 401: Problem },
      },
    },
    async (request, reply) => {
      const client = clientInfo(request);
      const result = await signIn(ctx, request.body, client);
      if (!result.ok) throw new HttpProblem(401, result.failure);

      // Credentials must never sit in a browser or proxy cache (RFC 6749 §5.1).
      reply.header('cache-control', 'no-store');
      const { useCookies, useSessionCookies } = request.query;
      if (!useCookies && !useSessionCookies) return issueBearerTokens(ctx, result.user.id, client);
      // As in ASP.NET Identity, useSessionCookies wins: the cookie dies with the browser session.
      const persistent = !useSessionCookies;
      const session = await startCookieSession(ctx, result.user.id, persistent, client);
      setSessionCookie(reply, ctx.config, session.token, persistent ? session.maxAgeSeconds : undefined);
      // An empty 200, as ASP.NET Identity answers a cookie sign-in; the schema's 200 is the bearer answer.
      return (reply as FastifyReply).send();
    },
  );

  app.post(
    '/logout',
    { config: { access: 'user' }, schema: { tags, summary: 'End the current session' } },
    async (request, reply) => {
      const principal = principalOf(request);
      await signOut(ctx, principal, clientInfo(request));
      if (principal.via === 'cookie') clearSessionCookie(reply, ctx.config);
      return reply.send();
    },
  );

  app.get(
    '/me',
    { config: { access: 'user' }, schema: { tags, summary: 'The signed-in user', response: { 200: CurrentUser } } },
    async (request) => {
      const user = await users.findById(ctx.db, principalOf(request).userId);
      if (!user) throw new HttpProblem(401, 'Sign in first.');
      const { id, email, role, emailConfirmed, twoFactorEnabled } = user;
      return { id, email, role, emailConfirmed, twoFactorEnabled };
    },
  );

  app.get(
    '/check',
    { config: { access: 'user' }, schema: { tags, summary: 'Whether the caller is signed in', response: { 200: Empty } } },
    async () => ({}),
  );
};
