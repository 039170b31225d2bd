import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  CreateDatabaseRequest,
  CreateRoleRequest,
  Database,
  DatabaseParams,
  DbRole,
  RoleParams,
  UpdateRoleRequest,
} from '../../contracts/databases';
import { Problem } from '../../contracts/problem';
import { audited } from '../authz/audited';
import { findInstanceRow } from '../db/instances';
import { pgSuperuserTarget } from '../engines/pg';
import type { PgTarget } from '../engines/pgBackup';
import { createDatabase, createRole, dropDatabase, dropRole, listDatabases, listRoles, updateRole } from '../engines/pgRoles';
import { HttpProblem } from '../http/problems';
import { pgProblem } from '../http/pgProblem';
import { visibleInstance, type InstanceRoutes } from '../http/instanceAccess';

const tags = ['databases'];
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
const refused = { 400: Problem, 404: Problem, 409: Problem };

/**
 * /instances/{id}/databases and /instances/{id}/roles (DESIGN §10, §11): PostgreSQL databases and
 * roles, made by the control plane as superuser for the members of the instance's group, checked
 * and audited. Roles made here get no attribute beyond LOGIN and join only each other or the owner.
 */
export const databaseRoutes: InstanceRoutes = async (app, { ctx, authz, service }) => {
  const visible = visibleInstance(ctx.db, authz);
  /** The superuser's way into a running pg instance the caller may see; 404 for anyone else. */
  const pgOf = async (request: FastifyRequest, instanceId: string): Promise<{ id: string; target: PgTarget }> => {
    const instance = await visible(request, instanceId);
    if (instance.type !== 'pg') throw new HttpProblem(409, 'Only PostgreSQL instances have databases and roles.');
    if (instance.status !== 'running') throw new HttpProblem(409, 'The instance is not running: start it to manage its databases and roles.');
    const rt = service.runtime((await findInstanceRow(ctx.db, instance.id))!);
    try {
      return { id: instance.id, target: pgSuperuserTarget(rt) };
    } catch (error) {
      // The superuser's secret is made at initialization: without it the instance cannot be managed here.
      throw new HttpProblem(409, `The instance cannot be reached as superuser: its secret could not be read (${(error as NodeJS.ErrnoException).code ?? 'unknown'}).`);
    }
  };

  app.get(
    '/:id/databases',
    { config: { access: 'user' }, schema: { tags, summary: 'Databases with their owners and sizes', params: IdParams, response: { 200: Type.Array(Database), 404: Problem, 409: Problem } } },
    async (request) => {
      const { target } = await pgOf(request, request.params.id);
      return pgProblem(() => listDatabases(target));
    },
  );

  app.post(
    '/:id/databases',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Create a database, owned by the owner role or a role made through Warden', params: IdParams, body: CreateDatabaseRequest, response: { 201: Database, ...refused } },
    },
    async (request, reply) => {
      const { name, owner } = request.body;
      const database = await audited(ctx, request, { action: 'instances.databases.create', target: request.params.id, detail: { name, owner } }, async () => {
        const { target } = await pgOf(request, request.params.id);
        return pgProblem(() => createDatabase(target, name, owner));
      });
      return reply.code(201).send(database);
    },
  );

  app.delete(
    '/:id/databases/:name',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Drop a database, ending its connections (never the default or system ones)', params: DatabaseParams, response: { 204: Type.Null(), ...refused } },
    },
    async (request, reply) => {
      const { id, name } = request.params;
      await audited(ctx, request, { action: 'instances.databases.delete', target: id, detail: { name } }, async () => {
        const { target } = await pgOf(request, id);
        await pgProblem(() => dropDatabase(target, name));
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/:id/roles',
    { config: { access: 'user' }, schema: { tags, summary: 'Roles (the pg_* predefined ones left out) with their memberships', params: IdParams, response: { 200: Type.Array(DbRole), 404: Problem, 409: Problem } } },
    async (request) => {
      const { target } = await pgOf(request, request.params.id);
      return pgProblem(() => listRoles(target));
    },
  );

  app.post(
    '/:id/roles',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Create a role (no superuser, CREATEROLE, CREATEDB, replication or RLS bypass)', params: IdParams, body: CreateRoleRequest, response: { 201: DbRole, ...refused } },
    },
    async (request, reply) => {
      const { password, ...input } = request.body;
      // The password is never recorded: only whether one was set.
      const detail = { ...input, password: password !== undefined };
      const role = await audited(ctx, request, { action: 'instances.roles.create', target: request.params.id, detail }, async () => {
        const { target } = await pgOf(request, request.params.id);
        return pgProblem(() => createRole(target, request.body));
      });
      return reply.code(201).send(role);
    },
  );

  app.put(
    '/:id/roles/:name',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Rename a role made through Warden, set its password, login or memberships', params: RoleParams, body: UpdateRoleRequest, response: { 200: DbRole, ...refused } },
    },
    async (request) => {
      const { id, name } = request.params;
      const { password, ...change } = request.body;
      const detail = { name, ...change, password: password !== undefined };
      return audited(ctx, request, { action: 'instances.roles.update', target: id, detail }, async () => {
        const { target } = await pgOf(request, id);
        return pgProblem(() => updateRole(target, name, request.body));
      });
    },
  );

  app.delete(
    '/:id/roles/:name',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Drop a role made through Warden; what it owns goes to the owner role', params: RoleParams, response: { 204: Type.Null(), ...refused } },
    },
    async (request, reply) => {
      const { id, name } = request.params;
      await audited(ctx, request, { action: 'instances.roles.delete', target: id, detail: { name } }, async () => {
        const { target } = await pgOf(request, id);
        await pgProblem(() => dropRole(target, name));
      });
      return reply.code(204).send(null);
    },
  );
};
