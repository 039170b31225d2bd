import { http, HttpResponse } from 'msw';
import type { DebugRequest, ServerInfo } from '../../../../contracts/debug';
import type { PageOf } from '../../../../contracts/page';
import type { OutboxMessage } from '../../../../contracts/users';

export const serverInfo: ServerInfo = {
  version: '0.1.0',
  uptimeSeconds: 93_784,
  node: 'v20.19.2',
  store: 'sqlite',
  engines: [
    { type: 'pg', available: true, version: '16.4', problem: null },
    { type: 'etcd', available: false, version: null, problem: 'etcd was not found: install the Debian package etcd-server' },
  ],
  hubConnections: 3,
  confinement: { active: false, reason: 'bubblewrap is not installed (Debian package bubblewrap): engines run as their instance\'s user, unconfined.' },
  pointInTimeRecovery: { active: true, repository: 's3', location: 'https://127.0.0.1:9000/wal/warden', reason: null },
};

type Answer = Response | Promise<Response>;

/**
 * POST /debug as the server answers it; each action can be replaced, and every request body is
 * recorded in `requests`.
 */
export function debugHandler(
  overrides: Partial<{ info: () => Answer; ping: () => Answer; broadcast: (body: DebugRequest) => Answer }> = {},
) {
  const requests: DebugRequest[] = [];
  const handler = http.post('/debug', async ({ request }) => {
    const body = (await request.json()) as DebugRequest;
    requests.push(body);
    switch (body.action) {
      case 'info':
        return overrides.info?.() ?? HttpResponse.json(serverInfo);
      case 'ping':
        return overrides.ping?.() ?? HttpResponse.json({ pong: true, serverTime: '2025-05-01T12:00:00.000Z' });
      case 'broadcast':
        return overrides.broadcast?.(body) ?? HttpResponse.json({ delivered: 'queued', to: body.to }, { status: 202 });
    }
  });
  return { handler, requests };
}

export const outboxMessage = (n: number, extra: Partial<OutboxMessage> = {}): OutboxMessage => ({
  id: `m-${n}`,
  at: '2025-05-01T10:00:00.000Z',
  to: `user${n}@example.com`,
  subject: `Confirm your e-mail ${n}`,
  text: `Open http://127.0.0.1:8080/auth/confirmEmail?userId=u${n}&code=abc`,
  sent: false,
  error: null,
  ...extra,
});

/** GET /admin/outbox answering from a list, paged as the API pages; `pagesAsked` records each ?page. */
export function outboxHandler(messages: OutboxMessage[]) {
  const pagesAsked: number[] = [];
  const handler = http.get('/admin/outbox', ({ request }) => {
    const query = new URL(request.url).searchParams;
    const page = Number(query.get('page') ?? 1);
    const pageSize = Number(query.get('pageSize') ?? 25);
    pagesAsked.push(page);
    const body: PageOf<OutboxMessage> = {
      items: messages.slice((page - 1) * pageSize, page * pageSize),
      total: messages.length,
      page,
      pageSize,
    };
    return HttpResponse.json(body);
  });
  return { handler, pagesAsked };
}
