import net from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import WebSocket from 'ws';
import type { OutboxMessage } from '../../contracts/users';
import { listOutbox } from '../../server/db/outbox';
import type { Db } from '../../server/db/schema';
import { origin, type Harness } from './helpers';

// Shared by the identity*.test.ts files: the outbox as a mailbox, calls with and without a session,
// a hub connection to watch being closed, and a fake SMTP server.

/** Every e-mail written, oldest first. */
export async function mails(db: Db): Promise<OutboxMessage[]> {
  return (await listOutbox(db, { order: 'asc', window: { page: 1, pageSize: 200 } })).items;
}

/** The newest e-mail to `to`; fails the test when there is none. */
export async function lastMailTo(db: Db, to: string): Promise<OutboxMessage> {
  const mail = (await mails(db)).filter((m) => m.to === to).at(-1);
  if (!mail) throw new Error(`no e-mail to ${to}`);
  return mail;
}

/** The first link in an e-mail's text. */
export function linkIn(mail: OutboxMessage): URL {
  const match = /https?:\/\/\S+/.exec(mail.text);
  if (!match) throw new Error(`no link in: ${mail.text}`);
  return new URL(match[0]);
}

export function post(h: Harness, url: string, payload: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: 'POST', url, payload: payload as Record<string, unknown>, headers });
}

/** Headers for a cookie-authenticated change: the cookie and an allowed Origin. */
export function asCookie(cookie: string): Record<string, string> {
  return { cookie, origin };
}

export async function confirmWith(h: Harness, link: URL): Promise<LightMyRequestResponse> {
  return h.app.inject({ url: `/auth/confirmEmail${link.search}` });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds (for work the server finishes after answering). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(20);
  }
}

/** A hub connection past its handshake, on a listening app; `closed` settles when the server closes it. */
export async function hubConnection(baseUrl: string, cookie: string) {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/uihub`, { headers: { cookie, origin } });
  const frames: string[] = [];
  socket.on('message', (data) => frames.push(data.toString()));
  let isClosed = false;
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      isClosed = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send('{"protocol":"json","version":1}\u001e');
  await eventually(async () => frames.length > 0);
  return { socket, frames, closed, isClosed: () => isClosed };
}

/**
 * An SMTP server on a free loopback port that accepts every message and keeps its raw text; with
 * `greetingDelayMs`, it is slow to answer a new connection.
 */
export async function fakeSmtpServer(options: { greetingDelayMs?: number } = {}) {
  const messages: string[] = [];
  const server = net.createServer((socket) => {
    socket.setEncoding('utf8');
    let buffer = '';
    let data: string | null = null;
    setTimeout(() => socket.write('220 fake.test ESMTP\r\n'), options.greetingDelayMs ?? 0);
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (data !== null) {
          if (line === '.') {
            messages.push(data);
            data = null;
            socket.write('250 2.0.0 queued\r\n');
          } else {
            data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          }
          continue;
        }
        const command = line.slice(0, 4).toUpperCase();
        if (command === 'EHLO' || command === 'HELO') socket.write('250 fake.test\r\n');
        else if (command === 'DATA') {
          data = '';
          socket.write('354 end with .\r\n');
        } else if (command === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
