import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import {
  AccessTokenResponse,
  AuthOptions,
  ConfirmEmailQuery,
  CurrentUser,
  EmailRequest,
  InfoRequest,
  InfoResponse,
  LoginQuery,
  LoginRequest,
  Profile,
  RefreshRequest,
  RegisterRequest,
  ResetPasswordRequest,
  TwoFactorRequest,
  TwoFactorResponse,
} from '../../contracts/auth';
import { Problem } from '../../contracts/problem';
import { accountInfo, updateAccountInfo } from '../auth/accountInfo';
import { auditAuth } from '../auth/authAudit';
import { confirmEmail, resendConfirmation } from '../auth/emailConfirmation';
import { forgotPassword, resetPassword } from '../auth/passwordReset';
import { perAccount, perIp } from '../auth/rateLimits';
import { register } from '../auth/registration';
import { issueBearerTokens, refreshBearerTokens, startCookieSession } from '../auth/sessions';
import { signIn, signOut } from '../auth/signIn';
import { manageTwoFactor } from '../auth/twoFactor';
import { identityDefaults } from '../config';
import type { AppContext } from '../context';
import { groupsOfUser } from '../db/groups';
import * as users from '../db/users';
import { clientInfo, principalOf } from '../http/auth';
import { HttpProblem } from '../http/problems';
import { clearSessionCookie, setSessionCookie } from '../http/sessionCookie';
import { createMailer } from '../mail/mailer';

const tags = ['auth'];
const Empty = Type.Object({}, { additionalProperties: false });
/** Identity answers these calls with a 200 and no body. */
const NoBody = Type.Null({ description: 'No body' });
const confirmedText = 'Thank you for confirming your email.';

/** /auth (DESIGN §7), shaped like ASP.NET Core Identity's MapIdentityApi. */
export const authRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const mailer = createMailer(ctx, app.log);
  app.addHook('onClose', () => mailer.drain());
  const mailCtx = { ...ctx, mailer };

  const ipLimit = perIp(ctx.config.authRateLimit ?? identityDefaults.authRateLimit);
  const accountLimit = ctx.config.accountRateLimit ?? identityDefaults.accountRateLimit;
  // Credentials and shared keys must never sit in a browser or proxy cache (RFC 6749 §5.1).
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  // ---- What the sign-in page may offer ----

  app.get(
    '/options',
    {
      config: { access: 'public' },
      schema: { tags, summary: 'What the sign-in page may offer', response: { 200: AuthOptions } },
    },
    async () => ({ registrationOpen: ctx.config.allowRegistration ?? identityDefaults.allowRegistration }),
  );

  // ---- Signing in and out ----

  app.post(
    '/login',
    {
      // The per-account lockout stops guessing one password; the per-IP limit stops spraying many accounts.
      config: { access: 'public', rateLimit: perIp(ctx.config.loginRateLimit) },
      preHandler: perAccount(app, accountLimit),
      schema: {
        tags,
        summary: 'Sign in with a cookie (useCookies / useSessionCookies) or for bearer tokens',
        querystring: LoginQuery,
        body: LoginRequest,
        response: { 200: AccessTokenResponse, 401: Problem, 429: Problem },
      },
    },
    async (request, reply) => {
      const client = clientInfo(request);
      const result = await signIn(ctx, request.body, client);
      if (!result.ok) throw new HttpProblem(401, result.failure);

      noStore(reply);
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
    '/refresh',
    {
      config: { access: 'public', rateLimit: ipLimit },
      schema: {
        tags,
        summary: 'Exchange a refresh token for new tokens; the one sent is used up, and sending it again revokes its sign-in',
        body: RefreshRequest,
        response: { 200: AccessTokenResponse, 401: Problem, 429: Problem },
      },
    },
    async (request, reply) => {
      const client = clientInfo(request);
      const result = await refreshBearerTokens(ctx, request.body.refreshToken, client);
      await auditAuth(ctx, client, {
        userId: result.userId,
        action: 'auth.refresh',
        target: result.userId,
        outcome: result.ok ? 'success' : 'failure',
        detail: result.ok ? undefined : { cause: result.failure },
      });
      if (!result.ok) throw new HttpProblem(401, 'The refresh token is not valid; sign in again.');
      noStore(reply);
      return result.tokens;
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

  // ---- Accounts: registration, confirmation, password reset ----

  app.post(
    '/register',
    {
      config: { access: 'public', rateLimit: ipLimit },
      schema: {
        tags,
        summary: 'Create a regular account (only when WARDEN_ALLOW_REGISTRATION is true); a confirmation link is mailed',
        body: RegisterRequest,
        response: { 200: NoBody, 400: Problem, 403: Problem, 429: Problem },
      },
    },
    async (request, reply) => {
      await register(mailCtx, request.body, clientInfo(request));
      return (reply as FastifyReply).send();
    },
  );

  app.get(
    '/confirmEmail',
    {
      config: { access: 'public', rateLimit: ipLimit },
      schema: {
        tags,
        summary: 'Confirm an address, or with changedEmail change to it, with the code from the e-mail',
        querystring: ConfirmEmailQuery,
        response: {
          200: {
            description: 'Confirmed',
            content: {
              'text/plain': { schema: Type.Literal(confirmedText) },
              'application/json': { schema: Type.Literal(confirmedText) },
            },
          },
          401: Problem,
          429: Problem,
        },
      },
    },
    async (request, reply) => {
      await confirmEmail(ctx, request.query, clientInfo(request));
      // Identity answers text. A caller accepting only JSON (the console's calls) gets the same sentence
      // as a JSON string, so its JSON parsing does not fail on success.
      const accept = request.headers.accept ?? '';
      if (accept.includes('application/json') && !/text\/|\*\/\*/.test(accept)) {
        return (reply as FastifyReply).type('application/json; charset=utf-8').send(JSON.stringify(confirmedText));
      }
      return reply.type('text/plain; charset=utf-8').send(confirmedText);
    },
  );

  app.post(
    '/resendConfirmationEmail',
    {
      config: { access: 'public', rateLimit: ipLimit },
      preHandler: perAccount(app, accountLimit),
      schema: {
        tags,
        summary: 'Mail the confirmation link again; always 200, whether or not the address is known',
        body: EmailRequest,
        response: { 200: NoBody, 429: Problem },
      },
    },
    async (request, reply) => {
      await resendConfirmation(mailCtx, request.body.email, clientInfo(request));
      return (reply as FastifyReply).send();
    },
  );

  app.post(
    '/forgotPassword',
    {
      config: { access: 'public', rateLimit: ipLimit },
      preHandler: perAccount(app, accountLimit),
      schema: {
        tags,
        summary: 'Mail a password reset code; always 200, whether or not the address is known',
        body: EmailRequest,
        response: { 200: NoBody, 429: Problem },
      },
    },
    async (request, reply) => {
      await forgotPassword(mailCtx, request.body.email, clientInfo(request));
      return (reply as FastifyReply).send();
    },
  );

  app.post(
    '/resetPassword',
    {
      config: { access: 'public', rateLimit: ipLimit },
      preHandler: perAccount(app, accountLimit),
      schema: {
        tags,
        summary: 'Set a new password with the mailed reset code; ends every session of the account',
        body: ResetPasswordRequest,
        response: { 200: NoBody, 400: Problem, 429: Problem },
      },
    },
    async (request, reply) => {
      await resetPassword(mailCtx, request.body, clientInfo(request));
      return (reply as FastifyReply).send();
    },
  );

  // ---- The signed-in user's own account ----

  app.post(
    '/manage/2fa',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Read or change two-factor sign-in (authenticator app and recovery codes)',
        body: TwoFactorRequest,
        response: { 200: TwoFactorResponse, 400: Problem },
      },
    },
    async (request, reply) => {
      const response = await manageTwoFactor(ctx, principalOf(request).userId, request.body, clientInfo(request));
      noStore(reply);
      return response;
    },
  );

  app.get(
    '/manage/info',
    { config: { access: 'user' }, schema: { tags, summary: "The caller's e-mail address", response: { 200: InfoResponse } } },
    async (request) => accountInfo(ctx, principalOf(request).userId),
  );

  app.post(
    '/manage/info',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Change the password (oldPassword required; ends other sessions) or request an e-mail change (confirmed by mail)',
        body: InfoRequest,
        response: { 200: InfoResponse, 400: Problem },
      },
    },
    async (request) => updateAccountInfo(mailCtx, principalOf(request), request.body, clientInfo(request)),
  );

  app.get(
    '/profile',
    { config: { access: 'user' }, schema: { tags, summary: 'The signed-in user with their groups', response: { 200: Profile } } },
    async (request) => {
      const user = await users.findById(ctx.db, principalOf(request).userId);
      if (!user) throw new HttpProblem(401, 'Sign in first.');
      const { id, email, role, emailConfirmed, twoFactorEnabled, createdAt, lastLoginAt } = user;
      return { id, email, role, emailConfirmed, twoFactorEnabled, createdAt, lastLoginAt, groups: await groupsOfUser(ctx.db, id) };
    },
  );
};
