import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Instance } from '../../contracts/instances';
import { CreateRestorePointRequest, PitrSettings, RecoveryWindow, RestorePlan, RestorePoint, RestoreToPointRequest } from '../../contracts/pitr';
import { Problem } from '../../contracts/problem';
import { perUser } from '../auth/rateLimits';
import { audited } from '../authz/audited';
import type { Authorization } from '../authz/authorization';
import { instanceDefaults } from '../config';
import type { AppContext } from '../context';
import { callerEmail } from '../http/auth';
import { groupForNewInstance, visibleInstance } from '../http/instanceAccess';
import type { PitrService } from '../pitr/pitrService';

const tags = ['point-in-time recovery'];
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: false }));

interface Deps {
  ctx: AppContext;
  authz: Authorization;
  service: PitrService;
}

/**
 * /instances/{id}/recovery-window, restore-point(s) and pitr/settings (DESIGN §12): scoped like every
 * instance call; a restore makes a new instance in one of the caller's groups, like a clone.
 */
export const pitrRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { ctx, authz, service }) => {
  const visible = visibleInstance(ctx.db, authz);
  const checkGroup = groupForNewInstance(ctx.db, authz);
  const creationLimit = perUser(app, ctx.config.instanceCreateRateLimit ?? instanceDefaults.instanceCreateRateLimit, 'create or clone instances');

  app.get(
    '/:id/recovery-window',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'The earliest and latest moments a restore can reach, the physical backups, gaps and restore points',
        params: IdParams,
        response: { 200: RecoveryWindow, 404: Problem },
      },
    },
    async (request) => service.window((await visible(request, request.params.id)).id),
  );

  app.post(
    '/:id/restore-point',
    {
      config: { access: 'user' },
      // A dry run makes nothing: the console asks for plans as the target is typed.
      preHandler: async (request) => {
        if (!(request.body as { dryRun?: boolean }).dryRun) await creationLimit(request);
      },
      schema: {
        tags,
        summary: 'A new instance holding this one as it was at a time, WAL position, named restore point or the latest; dryRun answers the plan only',
        params: IdParams,
        body: RestoreToPointRequest,
        response: { 200: RestorePlan, 202: Instance, 400: Problem, 404: Problem, 409: Problem, 429: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      const source = await visible(request, request.params.id);
      const body = request.body;
      if (body.dryRun) return reply.code(200).send(await service.plan(source.id, body));
      const recorded = { action: 'instances.restoreToPoint', target: source.id, detail: { name: body.name, target: body.target } };
      const made = await audited(ctx, request, recorded, async (note) => {
        const groupId = body.groupId === undefined ? source.groupId : await checkGroup(request, body.groupId);
        const { instance, plan } = await service.restore(source.id, { ...body, groupId }, await callerEmail(ctx.db, request));
        note.detail = { ...note.detail, newInstanceId: instance.id, backupId: plan.backup.id, targetTime: plan.targetTime };
        return instance;
      });
      return reply.code(202).send(made);
    },
  );

  app.post(
    '/:id/restore-points',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Mark a named restore point in the WAL ("before the migration") to restore to later',
        params: IdParams,
        body: CreateRestorePointRequest,
        response: { 201: RestorePoint, 400: Problem, 404: Problem, 409: Problem },
      },
    },
    async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const point = await audited(ctx, request, { action: 'instances.restorePoint', target: instance.id, detail: { name: request.body.name } }, async () =>
        service.createRestorePoint(instance.id, request.body.name, await callerEmail(ctx.db, request)),
      );
      return reply.code(201).send(point);
    },
  );

  for (const [kind, summary] of [
    ['drill', 'Restore the instance to a random moment of its window into a throwaway copy, start it and ask it a query: 202, the result arrives as RecoveryWindowChanged'],
    ['verify', "Check every backup and WAL file of the instance's repository against its checksum (pgBackRest verify): 202, the result arrives as RecoveryWindowChanged"],
  ] as const) {
    app.post(
      `/:id/pitr/${kind}`,
      {
        config: { access: 'user' },
        schema: { tags, summary, params: IdParams, body: EmptyBody, response: { 202: RecoveryWindow, 404: Problem, 409: Problem } },
      },
      async (request, reply) => {
        const instance = await visible(request, request.params.id);
        const window = await audited(ctx, request, { action: `instances.pitr.${kind}`, target: instance.id }, () => service.check(instance.id, kind));
        return reply.code(202).send(window);
      },
    );
  }

  app.get(
    '/:id/pitr/settings',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'The archive timeout and the window kept', params: IdParams, response: { 200: PitrSettings, 404: Problem, 409: Problem } },
    },
    async (request) => service.settings((await visible(request, request.params.id)).id),
  );

  app.put(
    '/:id/pitr/settings',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Set the archive timeout (10 s–10 min) and the window kept (1–35 days)',
        params: IdParams,
        body: PitrSettings,
        response: { 200: PitrSettings, 400: Problem, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      return audited(ctx, request, { action: 'instances.pitrSettings', target: instance.id, detail: request.body }, () => service.saveSettings(instance.id, request.body));
    },
  );
};
