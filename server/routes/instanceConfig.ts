import { Type } from 'typebox';
import { ConfigRevision, InstanceConfig, UpdateConfigRequest, UpdateConfigResponse } from '../../contracts/instances';
import { Page, PageQuery } from '../../contracts/page';
import { Problem } from '../../contracts/problem';
import { hasRole } from '../../contracts/roles';
import { audited } from '../authz/audited';
import { pageWindow } from '../db/paging';
import { callerEmail, principalOf } from '../http/auth';
import { visibleInstance, type InstanceRoutes } from '../http/instanceAccess';

const tags = ['instances'];
const id = Type.String({ minLength: 1, maxLength: 64 });
const IdParams = Type.Object({ id }, { additionalProperties: false });
const RevisionParams = Type.Object({ id, revision: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const RevisionsQuery = Type.Object(
  { page: PageQuery.properties.page, pageSize: PageQuery.properties.pageSize },
  { additionalProperties: false },
);
const RestoreRequest = Type.Object({ apply: UpdateConfigRequest.properties.apply }, { additionalProperties: false });

/** /instances/{id}/config… (SPEC §7): parameters, changes saved as revisions, and restoring one. */
export const instanceConfigRoutes: InstanceRoutes = async (app, { ctx, authz, service }) => {
  const visible = visibleInstance(ctx.db, authz);

  app.get(
    '/:id/config',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Configuration parameters with their metadata and the current revision', params: IdParams, response: { 200: InstanceConfig, 404: Problem, 409: Problem } },
    },
    async (request) => service.configuration((await visible(request, request.params.id)).id, hasRole(principalOf(request), 'admin')),
  );

  app.put(
    '/:id/config',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Change parameters: checked against the engine, saved as a revision, applied as asked (default reload)',
        params: IdParams,
        body: UpdateConfigRequest,
        response: { 200: UpdateConfigResponse, 400: Problem, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      const { parameters, apply = 'reload' } = request.body;
      return audited(ctx, request, { action: 'instances.config.update', target: instance.id, detail: { parameters, apply } }, async () =>
        service.configure(instance.id, parameters, apply, await callerEmail(ctx.db, request), hasRole(principalOf(request), 'admin')),
      );
    },
  );

  app.get(
    '/:id/config/revisions',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Saved configuration revisions, newest first', params: IdParams, querystring: RevisionsQuery, response: { 200: Page(ConfigRevision), 404: Problem } },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      const window = pageWindow(request.query);
      return service.revisions(instance.id, window.page, window.pageSize);
    },
  );

  app.post(
    '/:id/config/revisions/:revision/restore',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Restore the parameters of a revision (as a new revision)',
        params: RevisionParams,
        body: RestoreRequest,
        response: { 200: UpdateConfigResponse, 400: Problem, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      const { revision } = request.params;
      return audited(ctx, request, { action: 'instances.config.restore', target: instance.id, detail: { revision } }, async () =>
        service.restoreRevision(instance.id, revision, request.body.apply ?? 'reload', await callerEmail(ctx.db, request), hasRole(principalOf(request), 'admin')),
      );
    },
  );
};
