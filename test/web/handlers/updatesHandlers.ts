import { http, HttpResponse } from 'msw';
import type { UpdatableInstance } from '../../../contracts/instances';
import { anInstance } from './instancesHandlers';

export const anUpdatable = (id: string, name: string, from = '16.4', to = '16.6'): UpdatableInstance => ({
  instance: anInstance({ id, name, engineVersion: from }),
  latestVersion: to,
});

/**
 * GET /instances/updatable from a mutable list, and POST /instances/{id}/update, logged. `answer`
 * may hold or replace an update's answer (a 409, a response that waits).
 */
export function updatesServer(
  updatable: UpdatableInstance[],
  answer: (id: string) => Promise<Response | undefined> | Response | undefined = () => undefined,
) {
  const state = { updatable: [...updatable] };
  const calls: string[] = [];
  const handlers = [
    http.get('/instances/updatable', () => HttpResponse.json(state.updatable)),
    http.post('/instances/:id/update', async ({ params }) => {
      const id = String(params.id);
      calls.push(`POST update ${id}`);
      const item = state.updatable.find(({ instance }) => instance.id === id);
      const operation = { kind: 'update' as const, startedAt: '2025-03-04T05:06:07.000Z' };
      return (await answer(id)) ?? HttpResponse.json({ ...item?.instance, operation }, { status: 202 });
    }),
  ];
  return { state, handlers, calls };
}
