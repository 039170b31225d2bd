import { Type } from 'typebox';
import { pgDefaultDatabase, pgOwnerRole } from '../../contracts/databases';
import { ConnectionInfo, ConnectionSecret } from '../../contracts/instances';
import { Problem } from '../../contracts/problem';
import { hasRole } from '../../contracts/roles';
import { audited } from '../authz/audited';
import { findInstanceRow } from '../db/instances';
import { pgSuperuserPassword, pgSuperuserTarget } from '../engines/pg';
import { pgOwnerPassword, rotateOwnerPassword } from '../engines/pgRoles';
import { principalOf } from '../http/auth';
import { visibleInstance, type InstanceRoutes } from '../http/instanceAccess';
import { pgProblem } from '../http/pgProblem';
import { HttpProblem } from '../http/problems';
import { EmptyBody, IdParams, tags } from './instances';

const SecretQuery = Type.Object({ role: Type.Optional(Type.Enum(['owner', 'superuser'])) }, { additionalProperties: false });

/**
 * /instances/{id}/connection (DESIGN §10, §11): how group members connect to their instance, as the
 * owner role, and the passwords behind it.
 */
export const instanceConnectionRoutes: InstanceRoutes = async (app, { ctx, authz, service }) => {
  const visible = visibleInstance(ctx.db, authz);

  app.get(
    '/:id/connection',
    { config: { access: 'user' }, schema: { tags, summary: 'How to connect as the owner role (without the password)', params: IdParams, response: { 200: ConnectionInfo, 404: Problem } } },
    async (request) => {
      const instance = await visible(request, request.params.id);
      if (instance.type === 'pg') {
        return {
          host: instance.host,
          port: instance.port,
          user: pgOwnerRole,
          database: pgDefaultDatabase,
          uri: `postgresql://${pgOwnerRole}@${instance.host}:${instance.port}/${pgDefaultDatabase}`,
        };
      }
      return { host: instance.host, port: instance.port, user: null, database: null, uri: `http://${instance.host}:${instance.port}` };
    },
  );

  app.post(
    '/:id/connection/secret',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "The owner role's password for members of the instance's group; ?role=superuser the superuser's, for admins only (audited)",
        params: IdParams,
        querystring: SecretQuery,
        body: EmptyBody,
        response: { 200: ConnectionSecret, 403: Problem, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      const superuser = request.query.role === 'superuser';
      const note = superuser
        ? { action: 'instances.connection.secret.superuser', target: instance.id, detail: { name: instance.name, dangerous: true } }
        : { action: 'instances.connection.secret', target: instance.id, detail: { name: instance.name, role: pgOwnerRole } };
      return audited(ctx, request, note, async () => {
        // The superuser reaches the host's files and programs: people work as the owner role (DESIGN §11).
        if (superuser && !hasRole(principalOf(request), 'admin')) throw new HttpProblem(403, "Only admins may reveal the superuser's password.");
        if (instance.type !== 'pg') throw new HttpProblem(409, 'etcd instances have no password: they listen on loopback without authentication.');
        const rt = service.runtime((await findInstanceRow(ctx.db, instance.id))!);
        if (superuser) {
          try {
            return { password: pgSuperuserPassword(rt) };
          } catch {
            throw new HttpProblem(409, 'The instance is not initialized yet: it has no password.');
          }
        }
        const password = pgOwnerPassword(rt);
        if (password === null) throw new HttpProblem(409, 'The instance has no owner role yet: it is made when the instance starts, so start (or restart) it once.');
        return { password };
      });
    },
  );

  app.post(
    '/:id/connection/rotate',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "A new password for the owner role (the old one stops working); the instance must be running (audited)",
        params: IdParams,
        body: EmptyBody,
        response: { 200: ConnectionSecret, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      return audited(ctx, request, { action: 'instances.connection.rotate', target: instance.id, detail: { name: instance.name, role: pgOwnerRole } }, async () => {
        if (instance.type !== 'pg') throw new HttpProblem(409, 'etcd instances have no password: they listen on loopback without authentication.');
        if (instance.status !== 'running') throw new HttpProblem(409, 'The instance is not running: start it to rotate the password.');
        const rt = service.runtime((await findInstanceRow(ctx.db, instance.id))!);
        return { password: await pgProblem(() => rotateOwnerPassword(pgSuperuserTarget(rt))) };
      });
    },
  );
};
