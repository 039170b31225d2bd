import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  AllBackupsPage,
  AllBackupsQuery,
  Backup,
  BackupsQuery,
  BackupSchedule,
  BackupsSummary,
  backupSortFields,
  DeleteBackupQuery,
  DeleteBackupResponse,
  DownloadUrl,
  PinBackupRequest,
  RetentionPreview,
  RetentionPreviewRequest,
  TakeDatabaseBackupRequest,
  UpdateScheduleRequest,
  type BackupKind,
  type DatabaseBackupMethod,
} from '../../contracts/backups';
import { Page } from '../../contracts/page';
import { Problem } from '../../contracts/problem';
import { hasRole } from '../../contracts/roles';
import { audited } from '../authz/audited';
import type { Authorization } from '../authz/authorization';
import type { BackupService } from '../backups/backupService';
import type { AppContext } from '../context';
import { findInstance } from '../db/instances';
import { sortKeys } from '../db/paging';
import { callerEmail, principalOf } from '../http/auth';
import { HttpProblem } from '../http/problems';

const tags = ['backups'];
const id = Type.String({ minLength: 1, maxLength: 64 });
const IdParams = Type.Object({ id }, { additionalProperties: false });
const BackupParams = Type.Object({ id, backupId: id }, { additionalProperties: false });
const sort = Type.Optional(Type.Enum(sortKeys(backupSortFields)));
const ListQuery = Type.Object({ ...BackupsQuery.properties, sort }, { additionalProperties: false });
const AllQuery = Type.Object({ ...AllBackupsQuery.properties, sort }, { additionalProperties: false });
const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: false }));
/** The archive's bytes (a stream; documented for the OpenAPI document only). */
const Archive = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'The backup archive (application/x-tar)' });
const DownloadParams = Type.Object({ backupId: id }, { additionalProperties: false });
const DownloadQuery = Type.Object(
  { expires: Type.Integer({ minimum: 0 }), signature: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);

interface Deps {
  ctx: AppContext;
  authz: Authorization;
  service: BackupService;
}

/**
 * /instances/{id}/backups… (SPEC §7, DESIGN §10): scoped like every instance call. Backups of a
 * deleted instance stay reachable for admins through the same paths.
 */
export const instanceBackupRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { ctx, authz, service }) => {
  /** The instance's id when the caller may see it (admins also reach a deleted instance's backups); else 404. */
  const visible = async (request: FastifyRequest, instanceId: string) => {
    const principal = principalOf(request);
    if (await authz.canSeeInstance(principal, instanceId)) {
      const instance = await findInstance(ctx.db, instanceId);
      if (instance) return { id: instance.id, name: instance.name };
    }
    if (hasRole(principal, 'admin') && (await service.keptFor(instanceId)).count > 0) return { id: instanceId, name: instanceId };
    throw new HttpProblem(404, `No instance has the id ${instanceId}.`);
  };

  app.get(
    '/:id/backups',
    {
      config: { access: 'user' },
      schema: { tags, summary: "Counts, sizes and the running backup of each kind, with the instance's schedule", params: IdParams, response: { 200: BackupsSummary, 404: Problem } },
    },
    async (request) => service.summary((await visible(request, request.params.id)).id),
  );

  for (const [segment, kind] of [['database', 'database'], ['files', 'file']] as const) {
    app.get(
      `/:id/backups/${segment}`,
      {
        config: { access: 'user' },
        schema: {
          tags,
          summary: `The instance's ${kind} backups, newest first; filters status, trigger, time range`,
          params: IdParams,
          querystring: ListQuery,
          response: { 200: Page(Backup), 400: Problem, 404: Problem },
        },
      },
      async (request) => service.list((await visible(request, request.params.id)).id, kind, request.query),
    );

    app.post(
      `/:id/backups/${segment}/backup`,
      {
        config: { access: 'user' },
        schema: {
          tags,
          summary:
            kind === 'database'
              ? 'Take a database backup (a dump, or with kind full, diff or incr a physical pgBackRest backup of a pg instance): 202, then BackupProgress and BackupCompleted events'
              : 'Take a file backup: 202, then BackupProgress and BackupCompleted events',
          params: IdParams,
          body: kind === 'database' ? TakeDatabaseBackupRequest : EmptyBody,
          response: { 202: Backup, 400: Problem, 404: Problem, 409: Problem },
        },
      },
      async (request, reply) => {
        const instance = await visible(request, request.params.id);
        const method = (request.body as { kind?: DatabaseBackupMethod } | undefined)?.kind ?? 'dump';
        const backup = await audited(ctx, request, { action: `backups.take.${kind}`, target: instance.id, detail: { method } }, async (note) => {
          const { backup: started } = await service.take(instance.id, kind, 'manual', await callerEmail(ctx.db, request), method);
          note.detail = { method, backupId: started.id };
          return started;
        });
        return reply.code(202).send(backup);
      },
    );
  }

  for (const [segment, kind] of [['database', 'database'], ['file', 'file']] as const) {
    app.delete(
      `/:id/backups/${segment}/:backupId`,
      {
        config: { access: 'user' },
        schema: {
          tags,
          summary: `Delete a ${kind} backup; the last good one of the instance only with force`,
          params: BackupParams,
          querystring: DeleteBackupQuery,
          response: { 200: DeleteBackupResponse, 404: Problem, 409: Problem },
        },
      },
      async (request) => {
        const instance = await visible(request, request.params.id);
        const { backupId } = request.params;
        const force = request.query.force ?? false;
        return audited(ctx, request, { action: `backups.delete.${kind}`, target: backupId, detail: { instanceId: instance.id, force } }, () =>
          service.delete(instance.id, kind as BackupKind, backupId, force),
        );
      },
    );
  }

  app.get(
    '/:id/backups/url/:backupId',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'A signed download link for the backup, valid 5 minutes', params: BackupParams, response: { 200: DownloadUrl, 404: Problem, 409: Problem } },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      return audited(ctx, request, { action: 'backups.download', target: request.params.backupId, detail: { instanceId: instance.id } }, () =>
        service.downloadUrl(instance.id, request.params.backupId),
      );
    },
  );

  app.put(
    '/:id/backups/:backupId/pin',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Pin a backup so that retention never deletes it, or unpin it',
        params: BackupParams,
        body: PinBackupRequest,
        response: { 200: Backup, 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      const { pinned } = request.body;
      return audited(ctx, request, { action: pinned ? 'backups.pin' : 'backups.unpin', target: request.params.backupId, detail: { instanceId: instance.id } }, () =>
        service.pin(instance.id, request.params.backupId, pinned),
      );
    },
  );

  app.post(
    '/:id/backups/:backupId/verify',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Verify a backup by restoring it into a scratch instance: 202, the result arrives as BackupUpdated',
        params: BackupParams,
        body: EmptyBody,
        response: { 202: Backup, 404: Problem, 409: Problem },
      },
    },
    async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const { backup } = await service.verify(instance.id, request.params.backupId);
      return reply.code(202).send(backup);
    },
  );

  app.get(
    '/:id/backups/schedule',
    { config: { access: 'user' }, schema: { tags, summary: 'The backup schedule and retention, with the next run times', params: IdParams, response: { 200: BackupSchedule, 404: Problem } } },
    async (request) => service.schedule((await visible(request, request.params.id)).id),
  );

  app.put(
    '/:id/backups/schedule',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Set the backup schedule (cron in a time zone) and retention (keep last N and/or D days)',
        params: IdParams,
        body: UpdateScheduleRequest,
        response: { 200: BackupSchedule, 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      return audited(ctx, request, { action: 'backups.schedule', target: instance.id, detail: { ...request.body } }, async () =>
        service.saveSchedule(instance.id, request.body, await callerEmail(ctx.db, request)),
      );
    },
  );

  app.post(
    '/:id/backups/retention/preview',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Dry run: the database backups a retention policy would delete now',
        params: IdParams,
        body: RetentionPreviewRequest,
        response: { 200: RetentionPreview, 400: Problem, 404: Problem },
      },
    },
    async (request) => service.retentionPreview((await visible(request, request.params.id)).id, request.body),
  );
};

/** GET /backups (the Backups screen) and the signed download links. */
export const backupRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { authz, service }) => {
  app.get(
    '/backups',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Every backup the caller may see, across instances, with total size and failure count',
        querystring: AllQuery,
        response: { 200: AllBackupsPage, 400: Problem },
      },
    },
    async (request) => service.all(request.query, await authz.visibleGroupIds(principalOf(request))),
  );

  app.get(
    '/downloads/backups/:backupId',
    {
      // The signature is the credential: a link works in a new tab or a download manager.
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Download a backup through a signed link (Range supported; X-Checksum-Sha256; verified while streaming)',
        params: DownloadParams,
        querystring: DownloadQuery,
        response: { 200: Archive, 206: Archive, 403: Problem, 404: Problem, 409: Problem, 410: Problem, 416: Problem },
      },
    },
    async (request, reply) => {
      const plan = await service.openDownload(request.params.backupId, request.query.expires, request.query.signature, request.headers.range);
      return reply.code(plan.status).headers(plan.headers).send(plan.body);
    },
  );
};
