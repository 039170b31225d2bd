import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Problem } from '../../contracts/problem';
import { pgDefaultDatabase } from '../../contracts/databases';
import { SaveScriptRequest, Script, ScriptRun, ScriptRunRequest, ScriptRunsPage, ScriptRunsQuery, ScriptSchema, scriptLimits } from '../../contracts/scripts';
import { audited } from '../authz/audited';
import type { Authorization } from '../authz/authorization';
import type { AppContext } from '../context';
import { findInstanceRow } from '../db/instances';
import { pgSuperuserTarget } from '../engines/pg';
import { withClient } from '../engines/pgBackup';
import { callerEmail } from '../http/auth';
import { readPgSchema } from '../scripts/pgSchema';
import type { ScriptService } from '../scripts/scriptService';
import { visibleInstance } from '../http/instanceAccess';

const tags = ['scripts'];
const id = Type.String({ minLength: 1, maxLength: 64 });
const IdParams = Type.Object({ id }, { additionalProperties: false });
const RunParams = Type.Object({ id, runId: id }, { additionalProperties: false });
const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: false }));
/**
 * A script of maxScriptBytes may take several times its size as JSON (escapes): the body may be
 * larger, and the script itself is measured in bytes (413 past the limit).
 */
const bodyLimit = 8 * scriptLimits.maxScriptBytes;
/** Reading the catalogue is quick; an instance too busy to answer in this time gets no completion. */
const schemaTimeoutMs = 2000;

/** PostgreSQL's own refusal (a timeout …) as it said it; a connection that failed by its code only (its message names host paths). */
function unreadableReason(error: unknown): string {
  const { severity, code, message } = error as { severity?: string; code?: string; message?: string };
  return severity ? `${message ?? 'error'}${code ? ` (${code})` : ''}` : `the instance did not answer (${code ?? 'no connection'})`;
}

interface Deps {
  ctx: AppContext;
  authz: Authorization;
  service: ScriptService;
}

/** /instances/{id}/script… (SPEC §7, DESIGN §10 "Script run"): scoped like every instance call. */
export const scriptRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { ctx, authz, service }) => {
  const visible = visibleInstance(ctx.db, authz);

  app.get(
    '/:id/script',
    { config: { access: 'user' }, schema: { tags, summary: "The instance's saved script", params: IdParams, response: { 200: Script, 404: Problem } } },
    async (request) => service.script((await visible(request, request.params.id)).id),
  );

  app.put(
    '/:id/script',
    {
      bodyLimit,
      config: { access: 'user' },
      schema: {
        tags,
        summary: `Save the instance's script (at most ${scriptLimits.maxScriptBytes} bytes, else 413)`,
        params: IdParams,
        body: SaveScriptRequest,
        response: { 200: Script, 400: Problem, 404: Problem, 413: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      return audited(ctx, request, { action: 'scripts.save', target: instance.id, detail: { bytes: Buffer.byteLength(request.body.script) } }, async () =>
        service.save(instance.id, request.body.script, await callerEmail(ctx.db, request)),
      );
    },
  );

  app.post(
    '/:id/script',
    {
      bodyLimit,
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Run a script (the saved one without `script`) in a sandbox copy of the instance: 202, then ScriptRunUpdated events',
        params: IdParams,
        body: ScriptRunRequest,
        response: { 202: ScriptRun, 400: Problem, 404: Problem, 409: Problem, 413: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const { source, continueOnError, timeoutMs } = request.body;
      const run = await audited(
        ctx,
        request,
        { action: 'scripts.run', target: instance.id, detail: { source: source ?? 'latest-backup', continueOnError, timeoutMs } },
        async (note) => {
          const started = await service.start(instance.id, request.body, await callerEmail(ctx.db, request));
          note.detail = { ...note.detail, runId: started.id };
          return started;
        },
      );
      return reply.code(202).send(run);
    },
  );

  app.get(
    '/:id/script/schema',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "The tables and columns of the instance's default database, for the editor's completion (none for etcd or a stopped instance)",
        params: IdParams,
        response: { 200: ScriptSchema, 404: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      const readAt = () => ctx.clock().toISOString();
      if (instance.type !== 'pg' || instance.status !== 'running') return { tables: [], readAt: readAt() };
      const rt = ctx.instances.runtime((await findInstanceRow(ctx.db, instance.id))!);
      try {
        const tables = await withClient(pgSuperuserTarget(rt), pgDefaultDatabase, readPgSchema, schemaTimeoutMs);
        return { tables, readAt: readAt() };
      } catch (error) {
        // Completion is a help, not the page: an instance that does not answer (in time) leaves the
        // editor with keywords only, and the reason to show beside it.
        return { tables: [], readAt: readAt(), unreadable: `The instance's tables could not be read: ${unreadableReason(error)}.` };
      }
    },
  );

  app.get(
    '/:id/script/runs',
    {
      config: { access: 'user' },
      schema: { tags, summary: "The instance's script runs, newest first", params: IdParams, querystring: ScriptRunsQuery, response: { 200: ScriptRunsPage, 400: Problem, 404: Problem } },
    },
    async (request) => service.list((await visible(request, request.params.id)).id, request.query),
  );

  app.get(
    '/:id/script/runs/:runId',
    { config: { access: 'user' }, schema: { tags, summary: 'One script run with every result', params: RunParams, response: { 200: ScriptRun, 404: Problem } } },
    async (request) => service.find((await visible(request, request.params.id)).id, request.params.runId),
  );

  app.post(
    '/:id/script/runs/:runId/cancel',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Cancel a running script: the statement is cancelled and the sandbox removed; the end arrives as ScriptRunUpdated',
        params: RunParams,
        body: EmptyBody,
        response: { 202: ScriptRun, 404: Problem, 409: Problem },
      },
    },
    async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const run = await audited(ctx, request, { action: 'scripts.cancel', target: instance.id, detail: { runId: request.params.runId } }, () =>
        service.cancel(instance.id, request.params.runId),
      );
      return reply.code(202).send(run);
    },
  );
};
