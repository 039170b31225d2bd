import { timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findBackupRow } from '../db/backups';
import { findInstanceRow } from '../db/instances';
import type { Db } from '../db/schema';
import { sharedSecret } from '../db/secrets';
import { HttpProblem } from '../http/problems';
import type { InstanceContext } from '../instances/instanceContext';
import { findHostRow } from './hostStore';

/*
 * A call on an instance of another host that needs the instance's files (its configuration, backups,
 * scripts, databases and roles, connection secrets, clones and restores) is forwarded by the server
 * that was asked to the API of the host's agent, which answers it as any server would: the same
 * access rules, the same store, the same audit. The start, stop, restart and reload of such an
 * instance are queued instead (hostOperations.ts), and what the store alone holds (its logs) is
 * answered here. A backup's download goes to the host that keeps its file. An agent answers forwarded calls only: they carry a key kept in the store, which
 * only servers and agents can read.
 */

const forwardedHeader = 'x-warden-forwarded';
const secretName = 'host-forwarding';

/** Routes of an instance this server answers itself whatever host runs it. */
const answeredHere = new Set(
  ['start', 'stop', 'restart', 'reload-configuration', 'logs', 'logs/unique-handlers'].map((path) => `/instances/:id/${path}`),
);

/** Request headers that travel with a forwarded call: who calls, from where, with what. */
const passedOn = ['accept', 'authorization', 'content-type', 'cookie', 'if-range', 'origin', 'range', 'referer', 'user-agent', 'x-request-id'];
/** Answer headers that describe the connection, not the answer. */
const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const keyOf = (db: Db) => sharedSecret(db, secretName).then((key) => key.toString('base64url'));

/** What a server or agent sends with a call to another host's agent. */
export async function forwardingHeaders(db: Db): Promise<Record<string, string>> {
  return { [forwardedHeader]: await keyOf(db) };
}

/** On a server: calls on other hosts' instances go to their agents. */
export function forwardToHosts(app: FastifyInstance, { db, instances }: { db: Db; instances: InstanceContext }) {
  let key: Promise<string> | null = null;
  app.addHook('preHandler', async (request, reply) => {
    const id = await instanceOfCall(db, request);
    const row = id ? await findInstanceRow(db, id) : undefined;
    if (!row || instances.isLocal(row)) return;
    const host = row.host_id ? await findHostRow(db, row.host_id) : undefined;
    if (!host?.api_url) throw new HttpProblem(409, `No host runs ${row.name} yet: the first agent (WARDEN_ROLE=agent) to start on this store takes it.`);
    if (host.lost_at) {
      throw new HttpProblem(409, `${row.name} runs on host ${host.name}, which is lost (no heartbeat since ${host.heartbeat_at}): try again once its agent is back.`);
    }
    key ??= keyOf(db);
    return forward(request, reply, host.api_url, host.name, await key);
  });
}

/** The instance a call is about, when its answer needs the instance's files; undefined otherwise. */
async function instanceOfCall(db: Db, request: FastifyRequest): Promise<string | undefined> {
  const route = request.routeOptions.url;
  // A backup's file is kept on its instance's host.
  if (route === '/downloads/backups/:backupId') return (await findBackupRow(db, (request.params as { backupId: string }).backupId))?.instance_id;
  if (!route?.startsWith('/instances/:id/') || answeredHere.has(route)) return undefined;
  return (request.params as { id?: string }).id;
}

async function forward(request: FastifyRequest, reply: FastifyReply, base: string, hostName: string, key: string): Promise<FastifyReply> {
  const headers: Record<string, string> = { [forwardedHeader]: key };
  for (const name of passedOn) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const { body: given } = request;
  const body = given === undefined ? undefined : typeof given === 'string' ? given : Buffer.isBuffer(given) ? new Uint8Array(given) : JSON.stringify(given);
  let answer: Response;
  try {
    answer = await fetch(new URL(request.url, base), { method: request.method, headers, body, redirect: 'manual' });
  } catch {
    throw new HttpProblem(502, `Host ${hostName}'s agent did not answer at ${base}: it may be stopping or unreachable; try again.`, { title: 'Host unreachable' });
  }
  reply.code(answer.status);
  answer.headers.forEach((value, name) => {
    if (!hopByHop.has(name)) reply.header(name, value);
  });
  return reply.send(answer.body ? Readable.fromWeb(answer.body as WebReadableStream<Uint8Array>) : null);
}

/** On an agent: every call but its health must be one a server forwarded; others are answered as unknown. */
export function acceptForwardedOnly(app: FastifyInstance, db: Db) {
  let key: Promise<Buffer> | null = null;
  app.addHook('onRequest', async (request) => {
    if (request.url === '/healthz') return;
    key ??= keyOf(db).then((value) => Buffer.from(value));
    const given = Buffer.from(String(request.headers[forwardedHeader] ?? ''));
    const expected = await key;
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new HttpProblem(404, 'An agent answers only its health and the calls servers forward to it.');
    }
  });
}
