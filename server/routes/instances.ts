import { Type } from 'typebox';
import {
  CloneRequest,
  CreateInstanceRequest,
  DeleteInstanceQuery,
  DeleteInstanceResponse,
  GraphsQuery,
  GraphsResponse,
  Instance,
  InstancesQuery,
  IsLatestResponse,
  UpdatableInstance,
  UpdateInstanceRequest,
  ValidateNameRequest,
  ValidateNameResponse,
  instanceSortFields,
} from '../../contracts/instances';
import { LogsPage, LogsQuery, type LogLevel } from '../../contracts/logs';
import { Page } from '../../contracts/page';
import { Problem } from '../../contracts/problem';
import { hasRole } from '../../contracts/roles';
import { perUser } from '../auth/rateLimits';
import { audited } from '../authz/audited';
import { findInstance, listInstances, updateInstanceRow } from '../db/instances';
import { queryLogs, uniqueHandlers } from '../db/logs';
import { pageWindow, sortKeys } from '../db/paging';
import { callerEmail, principalOf } from '../http/auth';
import { HttpProblem, validationProblem } from '../http/problems';
import { checkInstanceQuota } from '../instances/createInstance';
import { creationGraph } from '../instances/graphs';
import { keepGroupLimits } from '../instances/groupLimits';
import { instanceDefaults } from '../config';
import { groupForNewInstance, visibleInstance, type InstanceRoutes } from '../http/instanceAccess';

export const tags = ['instances'];
const id = Type.String({ minLength: 1, maxLength: 64 });
export const IdParams = Type.Object({ id }, { additionalProperties: false });
const ListQuery = Type.Object(
  { ...InstancesQuery.properties, sort: Type.Optional(Type.Enum(sortKeys(instanceSortFields))) },
  { additionalProperties: false },
);
export const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: false }));
const accepted = { 202: Instance, 404: Problem, 409: Problem };

/** /instances (SPEC §7, DESIGN §5, §10): every call scoped by the one authorization layer. */
export const instanceRoutes: InstanceRoutes = async (app, { ctx, authz, service }) => {
  // Creating and cloning share one per-user count, so no one fills the host with instances in seconds.
  const creationLimit = perUser(app, ctx.config.instanceCreateRateLimit ?? instanceDefaults.instanceCreateRateLimit, 'create or clone instances');
  const visible = visibleInstance(ctx.db, authz);

  /** A regular user creates into one of their groups; an admin into any group or none. */
  const checkGroup = groupForNewInstance(ctx.db, authz);

  app.get(
    '',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Instances the caller may see, paged, sorted and filtered (search matches name and description)',
        querystring: ListQuery,
        response: { 200: Page(Instance), 400: Problem },
      },
    },
    async (request) => {
      const { search, sort, type, status, health, groupId } = request.query;
      return listInstances(ctx.db, {
        ...pageWindow(request.query),
        search,
        sort,
        type,
        status,
        health,
        groupId,
        visibleGroupIds: await authz.visibleGroupIds(principalOf(request)),
      });
    },
  );

  app.post(
    '',
    {
      config: { access: 'user' },
      preHandler: creationLimit,
      schema: {
        tags,
        summary: 'Create an instance: 202, then it initializes and starts (InstanceUpdated / OperationCompleted)',
        body: CreateInstanceRequest,
        response: { 202: Instance, 400: Problem, 409: Problem, 429: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const instance = await audited(ctx, request, { action: 'instances.create', target: body.name }, async (note) => {
        if (body.hostId !== undefined && !hasRole(principalOf(request), 'admin')) throw new HttpProblem(403, 'Only an admin chooses the host of a new instance.');
        const groupId = await checkGroup(request, body.groupId);
        const created = await service.create(
          {
            name: body.name,
            type: body.type,
            groupId,
            description: body.description ?? '',
            parameters: body.parameters ?? {},
            members: body.members ?? 1,
            dcsInstanceId: body.dcsInstanceId,
            synchronous: body.synchronous,
            failoverPreset: body.failoverPreset,
            hostId: body.hostId,
          },
          await callerEmail(ctx.db, request),
          hasRole(principalOf(request), 'admin'),
        );
        note.target = created.id;
        note.detail = { name: created.name, type: created.type, groupId, members: created.members, ...(body.hostId && { hostId: body.hostId }) };
        return created;
      });
      return reply.code(202).send(instance);
    },
  );

  app.post(
    '/validate-name',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Whether a name may be used for a new instance, and why not', body: ValidateNameRequest, response: { 200: ValidateNameResponse } },
    },
    async (request) => {
      const reason = await service.nameProblem(request.body.name);
      return reason ? { valid: false, reason } : { valid: true };
    },
  );

  app.get(
    '/graphs',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Creations of the instances the caller may see per day, week or month over a range, by type, with the cumulative count',
        querystring: GraphsQuery,
        response: { 200: GraphsResponse, 400: Problem },
      },
    },
    async (request) => {
      const { from, to, bucket = 'day', type } = request.query;
      if (from > to) throw validationProblem({ to: ['must not be before from'] });
      return creationGraph(ctx.db, { from, to, bucket, type, visibleGroupIds: await authz.visibleGroupIds(principalOf(request)) });
    },
  );

  app.get(
    '/updatable',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Instances the caller may see that run an older engine release than the installed one', response: { 200: Type.Array(UpdatableInstance) } },
    },
    async (request) => {
      const visibleGroupIds = await authz.visibleGroupIds(principalOf(request));
      const result = [];
      for (const type of ['pg', 'etcd'] as const) {
        const engine = service.engine(type);
        if (await engine.unavailable()) continue;
        const latestVersion = await engine.version();
        const page = await listInstances(ctx.db, { page: 1, pageSize: 10_000, type, visibleGroupIds, sort: 'name' });
        for (const instance of page.items) {
          if (instance.engineVersion !== null && instance.engineVersion !== latestVersion) result.push({ instance, latestVersion });
        }
      }
      return result;
    },
  );

  app.get(
    '/:id',
    { config: { access: 'user' }, schema: { tags, summary: 'One instance', params: IdParams, response: { 200: Instance, 404: Problem } } },
    async (request) => visible(request, request.params.id),
  );

  app.put(
    '/:id',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "Change an instance's description, or (admins) move it to another group or none: it runs with that group's process limits from its next start",
        params: IdParams,
        body: UpdateInstanceRequest,
        response: { 200: Instance, 400: Problem, 403: Problem, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const instanceId = request.params.id;
      const instance = await visible(request, instanceId);
      const { description, groupId } = request.body;
      await audited(ctx, request, { action: 'instances.update', target: instanceId, detail: { ...request.body } }, async () => {
        if (groupId !== undefined) {
          if (!hasRole(principalOf(request), 'admin')) throw new HttpProblem(403, 'Only admins move instances between groups.');
          await checkGroup(request, groupId);
          // A move counts against the new group's quota as a creation there does.
          if (groupId !== null && groupId !== instance.groupId) await checkInstanceQuota(ctx.db, groupId);
        }
        await updateInstanceRow(ctx.db, instanceId, {
          ...(description !== undefined && { description }),
          ...(groupId !== undefined && { group_id: groupId }),
        });
        // The new group's process limits, which a running instance takes at its next restart.
        if (groupId !== undefined && groupId !== instance.groupId) await keepGroupLimits(service, instanceId);
      });
      await service.publishInstance('InstanceUpdated', instanceId);
      return (await findInstance(ctx.db, instanceId))!;
    },
  );

  app.delete(
    '/:id',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete an instance and its data folder; a running one needs ?force=true (it is stopped first)',
        params: IdParams,
        querystring: DeleteInstanceQuery,
        response: { 200: DeleteInstanceResponse, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      return audited(ctx, request, { action: 'instances.delete', target: instance.id, detail: { name: instance.name, force: request.query.force ?? false } }, () =>
        service.delete(instance.id, request.query.force ?? false),
      );
    },
  );

  const operation = (path: string, kind: 'start' | 'stop' | 'restart' | 'reload' | 'update', summary: string) =>
    app.post(
      `/:id/${path}`,
      { config: { access: 'user' }, schema: { tags, summary, params: IdParams, body: EmptyBody, response: accepted } },
      async (request, reply) => {
        const instance = await visible(request, request.params.id);
        const result = await audited(ctx, request, { action: `instances.${kind}`, target: instance.id, detail: { name: instance.name } }, () =>
          service[kind](instance.id),
        );
        return reply.code(202).send(result);
      },
    );
  operation('start', 'start', 'Start the instance (202; OperationCompleted tells the outcome)');
  operation('stop', 'stop', 'Stop the instance; it stays stopped across server restarts');
  operation('restart', 'restart', 'Restart the instance');
  operation('reload-configuration', 'reload', 'Reload configuration: pg reloads live; etcd restarts with its flags');
  operation('update', 'update', 'Restart onto the newest installed engine release');

  app.post(
    '/:id/clone',
    {
      config: { access: 'user' },
      preHandler: creationLimit,
      schema: {
        tags,
        summary: 'A new instance (same type and group) from a consistent copy of this one, or restored from one of its database backups (backupId)',
        params: IdParams,
        body: CloneRequest,
        response: { 202: Instance, 400: Problem, 404: Problem, 409: Problem, 429: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      const source = await visible(request, request.params.id);
      const { backupId, ...input } = request.body;
      // A restore is recorded on the backup it reads, naming the instance it makes; a clone on the instance it copies.
      const recorded = backupId
        ? { action: 'backups.restore', target: backupId, detail: { instanceId: source.id, newInstanceName: input.name } }
        : { action: 'instances.clone', target: source.id, detail: { name: input.name } };
      const clone = await audited(ctx, request, recorded, async (note) => {
        if (input.hostId !== undefined && !hasRole(principalOf(request), 'admin')) throw new HttpProblem(403, 'Only an admin chooses the host of a new instance.');
        if (input.hostId !== undefined && !backupId) {
          throw validationProblem({ hostId: ['A copy of a running instance is made on its own host: restore one of its database backups to place it on another.'] });
        }
        if (backupId && (input.members ?? 1) > 1) {
          throw validationProblem({ members: ['A restore from a database backup makes a single server: clone the running instance, or restore it to a point, for a cluster.'] });
        }
        const author = await callerEmail(ctx.db, request);
        const created = backupId
          ? await service.cloneFromBackup(source.id, { ...input, backupId }, author)
          : await service.clone(source.id, input, author);
        note.detail = { ...note.detail, ...(backupId ? { newInstanceId: created.id } : { cloneId: created.id }) };
        return created;
      });
      return reply.code(202).send(clone);
    },
  );

  app.get(
    '/:id/is-latest',
    { config: { access: 'user' }, schema: { tags, summary: 'Whether the instance runs the newest installed engine release', params: IdParams, response: { 200: IsLatestResponse, 404: Problem } } },
    async (request) => {
      const instance = await visible(request, request.params.id);
      const engine = service.engine(instance.type);
      const latestVersion = (await engine.unavailable()) ? null : await engine.version();
      return {
        latest: latestVersion === null || instance.engineVersion === null || instance.engineVersion === latestVersion,
        engineVersion: instance.engineVersion,
        latestVersion,
      };
    },
  );

  app.get(
    '/:id/logs',
    {
      config: { access: 'user' },
      schema: { tags, summary: "The instance's log entries, newest first, paged by cursor", params: IdParams, querystring: LogsQuery, response: { 200: LogsPage, 400: Problem, 404: Problem } },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      const { levels, handler, search, from, to, cursor, limit = 100 } = request.query;
      return queryLogs(ctx.db, {
        instanceId: instance.id,
        levels: levels?.split(',') as LogLevel[] | undefined,
        handler,
        search,
        from: from && new Date(from).toISOString(),
        to: to && new Date(to).toISOString(),
        cursor,
        limit,
      });
    },
  );

  app.get(
    '/:id/logs/unique-handlers',
    { config: { access: 'user' }, schema: { tags, summary: "The handlers (sources) of the instance's log entries", params: IdParams, response: { 200: Type.Array(Type.String()), 404: Problem } } },
    async (request) => uniqueHandlers(ctx.db, (await visible(request, request.params.id)).id),
  );
};
