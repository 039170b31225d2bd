import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BroadcastAccepted, DebugRequest, PingResponse, ServerInfo } from '../../contracts/debug';
import type { DebugMessagePayload } from '../../contracts/hub';
import type { AppContext } from '../context';
import { findById } from '../db/users';
import { confinementStatus } from '../engines/confinement';
import { pointInTimeFacts } from '../pitr/pitrConfig';
import { detectEngines } from '../engines/detect';
import { principalOf } from '../http/auth';
import { validationProblem } from '../http/problems';
import { wardenVersion } from '../version';


/** POST /debug (admin only): ping, a DebugMessage through the event bus, and server facts. */
export const debugRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const startedAt = ctx.clock().getTime();
  app.post(
    '/debug',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['debug'],
        summary: 'Ping, broadcast a DebugMessage, or read server facts',
        body: DebugRequest,
        response: { 200: { anyOf: [PingResponse, ServerInfo] }, 202: BroadcastAccepted },
      },
    },
    async (request, reply) => {
      const body = request.body;
      switch (body.action) {
        case 'ping':
          return { pong: true as const, serverTime: ctx.clock().toISOString() };
        case 'info':
          return {
            version: wardenVersion,
            uptimeSeconds: Math.round((ctx.clock().getTime() - startedAt) / 1000),
            node: process.version,
            store: 'sqlite',
            engines: await detectEngines(ctx.config.engines),
            hubConnections: ctx.hub.connectionCount,
            confinement: confinementStatus(),
            pointInTimeRecovery: pointInTimeFacts(ctx.config),
          };
        case 'broadcast': {
          const missing = (['event', 'payload', 'to'] as const).filter((field) => body[field] === undefined);
          if (missing.length > 0) {
            throw validationProblem(Object.fromEntries(missing.map((field) => [field, [`A broadcast needs ${field}.`]])));
          }
          const principal = principalOf(request);
          const sender = await findById(ctx.db, principal.userId);
          const payload: DebugMessagePayload = {
            text: body.payload!.text,
            from: sender?.email ?? principal.userId,
            sentAt: ctx.clock().toISOString(),
          };
          ctx.bus.publish({
            event: body.event!,
            payload,
            audience: body.to === 'me' ? { kind: 'users', userIds: [principal.userId] } : { kind: 'all' },
          });
          return reply.code(202).send({ delivered: 'queued', to: body.to! });
        }
      }
    },
  );
};
