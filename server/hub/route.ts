import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { hubPath } from '../../contracts/hub';
import type { AppContext } from '../context';
import { principalOf } from '../http/auth';
import { HttpProblem } from '../http/problems';
import type { Hub } from './hub';

/**
 * /uihub: the access plugin has already refused an upgrade without a session (401, before any
 * WebSocket exists); this route refuses foreign Origins (cross-site WebSocket hijacking) and users
 * over their connection limit, then hands the socket to the hub.
 */
export async function hubRoute(app: FastifyInstance, { ctx, hub }: { ctx: AppContext; hub: Hub }) {
  await app.register(websocket, {
    // ws never buffers a frame over twice the hub's limit (it closes with 1009); frames between
    // the two get the hub's clear Close "Message is too large" instead.
    options: { maxPayload: hub.limits.maxMessageBytes * 2 },
    // A client's broken frame (invalid UTF-8, over maxPayload) is an error ws already answers with
    // a close frame and the hub logs; the plugin's default would log it as a server error and cut
    // the socket before that close frame is out.
    errorHandler: (error, socket, request) => {
      if (socket.readyState === socket.CLOSING || socket.readyState === socket.CLOSED) return;
      request.log.warn({ err: error }, 'hub connection failed');
      socket.terminate();
    },
  });

  // A refused upgrade is answered over the raw socket, which Node no longer reads after 'upgrade':
  // end it, or neither side notices the close and the server cannot shut down.
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode >= 400 && request.headers.upgrade?.toLowerCase() === 'websocket') request.raw.socket.destroy();
  });

  app.get(
    hubPath,
    {
      websocket: true,
      config: { access: 'user' },
      schema: { tags: ['hub'], summary: 'Real-time hub (SignalR JSON protocol over WebSockets)', hide: true },
      preValidation: async (request) => {
        const origin = request.headers.origin;
        if (origin !== undefined && !ctx.config.allowedOrigins.includes(origin)) {
          throw new HttpProblem(403, `WebSocket connections from origin ${origin} are not allowed.`);
        }
        const refusal = hub.admissionError(principalOf(request));
        if (refusal) throw new HttpProblem(429, refusal);
      },
    },
    (socket, request) => hub.accept(socket, principalOf(request)),
  );
}
