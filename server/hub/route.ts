import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { hubPath } from '../../contracts/hub';
import { principalOf } from '../http/auth';
import { HttpProblem } from '../http/problems';
import type { Hub } from './hub';

const ConnectQuery = Type.Object(
  { id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The connection token from negotiate.' })) },
  { additionalProperties: false },
);

const NegotiateQuery = Type.Object(
  {
    negotiateVersion: Type.Integer({ minimum: 0, maximum: 1 }),
    useStatefulReconnect: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Answered to the official client's negotiate: WebSockets is the one transport, text the one format. */
const availableTransports = [{ transport: 'WebSockets', transferFormats: ['Text'] }];

/**
 * /uihub/negotiate hands out a connection token (and stateful reconnect, when asked); a socket may
 * present it as ?id= to take that connection, or come without one (negotiation skipped).
 * /uihub: the access plugin has already refused an upgrade without a session (401, before any
 * WebSocket exists) or one a foreign page may have opened (403, Origin checked like a change's);
 * this route refuses users over their connection limit, then hands the socket to the hub.
 */
export async function hubRoute(app: FastifyInstance, { hub }: { hub: Hub }) {
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

  app.post<{ Querystring: Static<typeof NegotiateQuery> }>(
    `${hubPath}/negotiate`,
    {
      config: { access: 'user' },
      schema: { tags: ['hub'], summary: 'Negotiate a real-time hub connection', querystring: NegotiateQuery, hide: true },
    },
    async (request) => {
      const principal = principalOf(request);
      const refusal = hub.admissionError(principal);
      if (refusal) throw new HttpProblem(429, refusal);
      const negotiation = hub.negotiate(principal, request.query.useStatefulReconnect === true);
      return { negotiateVersion: 1, ...negotiation, availableTransports };
    },
  );

  app.get<{ Querystring: Static<typeof ConnectQuery> }>(
    hubPath,
    {
      websocket: true,
      config: { access: 'user' },
      schema: { tags: ['hub'], summary: 'Real-time hub (SignalR JSON protocol over WebSockets)', querystring: ConnectQuery, hide: true },
      preValidation: async (request) => {
        const token = request.query.id;
        if (token !== undefined) {
          const resume = hub.resumeError(principalOf(request), token);
          if (resume) throw new HttpProblem(resume.status, resume.reason);
          return;
        }
        const refusal = hub.admissionError(principalOf(request));
        if (refusal) throw new HttpProblem(429, refusal);
      },
    },
    (socket, request) => hub.accept(socket, principalOf(request), request.query.id),
  );
}
