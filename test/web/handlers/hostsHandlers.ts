import { http, HttpResponse } from 'msw';
import type { Host } from '../../../contracts/hosts';
import { problem } from '../msw';

export const aHost = (overrides: Partial<Host> = {}): Host => ({
  id: 'h-1',
  name: 'alpha',
  address: '10.0.0.5',
  state: 'online',
  draining: false,
  cores: 8,
  memoryBytes: 16_000_000_000,
  diskFreeBytes: 250_000_000_000,
  ports: { from: 5433, to: 5532 },
  freePorts: 97,
  instanceCount: 3,
  agentVersion: '0.1.0',
  startedAt: '2025-03-01T00:00:00.000Z',
  lastHeartbeatAt: new Date().toISOString(),
  lostAt: null,
  ...overrides,
});

/**
 * GET /hosts and PUT /hosts/{id} over a mutable list of hosts: a PUT changes the host it names
 * (404 for an unknown id), so the list read after it shows the change. Each PUT's body is logged.
 */
export function hostsHandlers(hosts: Host[], heartbeatMs = 5000) {
  const gets: number[] = [];
  const puts: { id: string; body: unknown }[] = [];
  const handlers = [
    http.get('/hosts', () => {
      gets.push(Date.now());
      return HttpResponse.json({ items: hosts, heartbeatMs });
    }),
    http.put('/hosts/:id', async ({ params, request }) => {
      const id = String(params.id);
      const body = (await request.json()) as { draining: boolean };
      puts.push({ id, body });
      const host = hosts.find((candidate) => candidate.id === id);
      if (!host) return problem(404, 'Not Found', `No host has the id ${id}.`);
      host.draining = body.draining;
      return HttpResponse.json(host);
    }),
  ];
  return { handlers, gets, puts };
}
