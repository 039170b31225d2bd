import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Host, HostList, UpdateHostRequest } from '../../contracts/hosts';
import { Problem } from '../../contracts/problem';
import { audited } from '../authz/audited';
import type { AppContext } from '../context';
import { hostDefaults } from '../config';
import { HttpProblem } from '../http/problems';
import { publishHost } from '../hosts/hostAgent';
import { hostView, hostViews, setDraining } from '../hosts/hostStore';

const tags = ['hosts'];
const HostIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

/** GET /hosts and PUT /hosts/{id} (admin only): the machines that run instances, and draining one. */
export const hostRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Every host by name: capacity, instances, agent version, last heartbeat', response: { 200: HostList } },
    },
    async () => ({ items: await hostViews(ctx.db), heartbeatMs: ctx.config.heartbeatMs ?? hostDefaults.heartbeatMs }),
  );

  app.put(
    '/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Drain a host (it keeps its instances, new ones go elsewhere) or stop draining it',
        params: HostIdParams,
        body: UpdateHostRequest,
        response: { 200: Host, 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { draining } = request.body;
      return audited(ctx, request, { action: 'hosts.update', target: id, detail: { draining } }, async () => {
        if (!(await setDraining(ctx.db, id, draining))) throw new HttpProblem(404, `No host has the id ${id}.`);
        await publishHost(ctx.db, ctx.bus, id, 'updated');
        return (await hostView(ctx.db, id))!;
      });
    },
  );
};
