import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { startPhases, type Startup } from '../startup';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('starting'), Type.Literal('failed')]),
  /** What a start still runs after listening, in order; empty once it is done. */
  pending: Type.Array(Type.String()),
  /** Start-up work that failed; the server's log says why. */
  failed: Type.Array(Type.String()),
  /** Milliseconds from the process's start to each phase it has reached. */
  phases: Type.Object(Object.fromEntries(startPhases.map((phase) => [phase, Type.Optional(Type.Number())]))),
});

/**
 * Liveness for load balancers and scripts: answers 200 as soon as the process serves HTTP, saying
 * `starting` and what is pending while the start's background work runs, and 503 when some of it failed.
 */
export const healthRoutes: FastifyPluginAsyncTypebox<{ startup: Startup }> = async (app, { startup }) => {
  app.get(
    '/healthz',
    { config: { access: 'public' }, schema: { tags: ['health'], response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      const status = startup.status();
      return reply.code(status.status === 'failed' ? 503 : 200).send(status);
    },
  );
};
