import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

const Health = Type.Object({ status: Type.Literal('ok') });

/** Liveness for load balancers and scripts: answers as soon as the process serves HTTP. */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    { config: { access: 'public' }, schema: { tags: ['health'], response: { 200: Health } } },
    async () => ({ status: 'ok' as const }),
  );
};
