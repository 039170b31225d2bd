import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Role } from '../../contracts/auth';
import type { UserChangedPayload } from '../../contracts/hub';
import { Page } from '../../contracts/page';
import { Problem } from '../../contracts/problem';
import { roles } from '../../contracts/roles';
import {
  ChangePasswordRequest,
  CreateUserRequest,
  SessionsEnded,
  UnlockResult,
  UpdateUserRequest,
  User,
  UsersQuery,
} from '../../contracts/users';
import { isValidEmail } from '../auth/emailRules';
import { identityProblem, type IdentityErrorCode } from '../auth/identityErrors';
import { unlockEverywhere } from '../auth/lockout';
import { passwordErrors } from '../auth/passwordRules';
import { endAllSessions } from '../auth/sessions';
import { audited } from '../authz/audited';
import type { AppContext } from '../context';
import { countOtherEnabledAdmins, listUsers, setPassword, updateUser, userSortFields, userView } from '../db/adminUsers';
import { pageWindow, sortKeys } from '../db/paging';
import { deleteRecoveryCodes } from '../db/recoveryCodes';
import * as users from '../db/users';
import { principalOf } from '../http/auth';
import { HttpProblem } from '../http/problems';

const tags = ['admin'];

const UsersListQuery = Type.Object(
  { ...UsersQuery.properties, sort: Type.Optional(Type.Enum(sortKeys(userSortFields))) },
  { additionalProperties: false },
);
const UserIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

function notFound(id: string): HttpProblem {
  return new HttpProblem(404, `No user has the id ${id}.`);
}

/** User administration (admin only): list, create, inspect, change role, disable, set a password, unlock, reset 2FA. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const publish = (id: string, change: UserChangedPayload['change']) =>
    ctx.bus.publish({ event: 'UserChanged', payload: { id, change } satisfies UserChangedPayload, audience: { kind: 'admins' } });

  app.get(
    '/users',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Users, paged; search matches the e-mail',
        querystring: UsersListQuery,
        response: { 200: Page(User), 400: Problem },
      },
    },
    async (request) => {
      const { search, role, disabled, sort = 'email' } = request.query;
      return listUsers(ctx.db, { search, role, disabled, sort, window: pageWindow(request.query) }, ctx.clock());
    },
  );

  app.post(
    '/users',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a user (e-mail confirmed)',
        body: CreateUserRequest,
        response: { 201: User, 400: Problem },
      },
    },
    async (request, reply) => {
      const { email, password, role } = request.body;
      const user = await audited(
        ctx,
        request,
        { action: 'admin.users.create', target: users.normalizeEmail(email), detail: { role } },
        async (note) => {
          const codes: IdentityErrorCode[] = [...(isValidEmail(email) ? [] : (['InvalidEmail'] as const)), ...passwordErrors(password)];
          if (codes.length > 0) throw identityProblem(codes, email);
          try {
            const created = await users.createUser(ctx.db, { email, password, role, emailConfirmed: true }, ctx.clock());
            note.target = created.id;
            note.detail = { email: created.email, role };
            return created;
          } catch (error) {
            if (error instanceof users.DuplicateEmailError) throw identityProblem(['DuplicateEmail'], email);
            throw error;
          }
        },
      );
      publish(user.id, 'created');
      return reply.code(201).send(await userView(ctx.db, user, ctx.clock()));
    },
  );

  app.get(
    '/users/roles',
    { config: { access: 'admin' }, schema: { tags, summary: 'The roles a user may have', response: { 200: Type.Array(Role) } } },
    async () => [...roles],
  );

  app.get(
    '/users/:id',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'One user', params: UserIdParams, response: { 200: User, 404: Problem } },
    },
    async (request) => {
      const user = await users.findById(ctx.db, request.params.id);
      if (!user) throw notFound(request.params.id);
      return userView(ctx.db, user, ctx.clock());
    },
  );

  app.put(
    '/users/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change the role or disable/enable; disabling ends every session of the user',
        params: UserIdParams,
        body: UpdateUserRequest,
        response: { 200: User, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const { id } = request.params;
      const change = request.body;
      const principal = principalOf(request);
      const { user, roleChanged } = await audited(
        ctx,
        request,
        { action: 'admin.users.update', target: id, detail: { ...change } },
        async (note) => {
          // One transaction, so two admins demoting each other at once cannot leave no admin.
          const updated = await ctx.db.transaction().execute(async (trx) => {
            const before = await users.findById(trx, id);
            if (!before) throw notFound(id);
            if (change.disabled === true && id === principal.userId) {
              throw new HttpProblem(409, 'You cannot disable your own account; another admin has to.');
            }
            const staysEnabledAdmin = (change.role ?? before.role) === 'admin' && !(change.disabled ?? before.disabled);
            const isEnabledAdmin = before.role === 'admin' && !before.disabled;
            if (isEnabledAdmin && !staysEnabledAdmin && (await countOtherEnabledAdmins(trx, id)) === 0) {
              throw new HttpProblem(
                409,
                `${before.email} is the last enabled admin and cannot be ${change.disabled ? 'disabled' : 'demoted'}: make another user an admin first.`,
              );
            }
            await updateUser(trx, id, change);
            return { user: (await users.findById(trx, id))!, roleChanged: change.role !== undefined && change.role !== before.role };
          });
          // Committed first: a disabled user's sessions stop authenticating at once, so none slips in between.
          if (change.disabled) {
            note.detail = { ...note.detail, sessionsEnded: await endAllSessions(ctx, id, 'Your account was disabled.') };
          }
          return updated;
        },
      );
      // Hub connections carry the role they were opened with, so a changed role must reconnect too.
      if (roleChanged && !change.disabled) ctx.hub.closeUser(id, 'Your role was changed.');
      publish(id, 'updated');
      return userView(ctx.db, user, ctx.clock());
    },
  );

  app.post(
    '/users/change-password',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Set a user's password; ends every session of the user",
        body: ChangePasswordRequest,
        response: { 200: SessionsEnded, 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const { userId, newPassword } = request.body;
      const result = await audited(
        ctx,
        request,
        { action: 'admin.users.change-password', target: userId },
        async (note) => {
          const user = await users.findById(ctx.db, userId);
          if (!user) throw notFound(userId);
          const codes = passwordErrors(newPassword);
          if (codes.length > 0) throw identityProblem(codes);
          await setPassword(ctx.db, userId, newPassword);
          const sessionsEnded = await endAllSessions(ctx, userId, 'Your password was changed.');
          note.detail = { sessionsEnded };
          return { sessionsEnded };
        },
      );
      publish(userId, 'updated');
      return result;
    },
  );

  app.post(
    '/users/:id/unlock',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Lift every sign-in lockout of the user (from any client address) and forget their failed sign-ins',
        params: UserIdParams,
        response: { 200: UnlockResult, 404: Problem },
      },
    },
    async (request) => {
      const { id } = request.params;
      const result = await audited(ctx, request, { action: 'admin.users.unlock', target: id }, async (note) => {
        if (!(await users.findById(ctx.db, id))) throw notFound(id);
        const locksLifted = await unlockEverywhere(ctx.db, id, ctx.clock());
        note.detail = { locksLifted };
        return { locksLifted };
      });
      publish(id, 'updated');
      return result;
    },
  );

  app.post(
    '/users/:id/reset-2fa',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Turn the user's two-factor sign-in off, dropping the shared key and the recovery codes (for a lost phone)",
        params: UserIdParams,
        response: { 200: User, 404: Problem },
      },
    },
    async (request) => {
      const { id } = request.params;
      const user = await audited(ctx, request, { action: 'admin.users.reset-2fa', target: id }, async (note) => {
        const before = await users.findById(ctx.db, id);
        if (!before) throw notFound(id);
        // No key is kept: the user enrols afresh, and no old code or recovery code works any more.
        await users.setTwoFactor(ctx.db, id, { enabled: false, secret: null, keyChanged: true });
        await deleteRecoveryCodes(ctx.db, id);
        note.detail = { wasEnabled: before.twoFactorEnabled };
        return (await users.findById(ctx.db, id))!;
      });
      publish(id, 'updated');
      return userView(ctx.db, user, ctx.clock());
    },
  );
};
