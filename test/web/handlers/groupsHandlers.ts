import { http, HttpResponse } from 'msw';
import type { Group, GroupMember } from '../../../contracts/groups';
import type { PageOf } from '../../../contracts/page';
import { problem } from '../msw';
import { pageOf, requestLog } from './pages';

export const aGroup = (overrides: Partial<Group> = {}): Group => ({
  id: 'g-1',
  name: 'payments',
  description: 'The payment databases',
  memberCount: 0,
  instanceCount: 0,
  createdAt: '2025-02-03T04:05:06.000Z',
  quota: { maxInstances: null, maxBackupBytes: null },
  backupBytes: 0,
  limits: { maxProcesses: null, maxOpenFiles: null, maxMemoryBytes: null },
  defaultLimits: { maxProcesses: 512, maxOpenFiles: 4096, maxMemoryBytes: 16 * 1024 ** 3 },
  ...overrides,
});

export const aMember = (overrides: Partial<GroupMember> = {}): GroupMember => ({
  id: 'u-1',
  email: 'una@example.com',
  role: 'regular',
  ...overrides,
});

/** GET /groups: answers what `answer` makes of the query, and logs each query. */
export function groupsListHandler(answer: (query: URLSearchParams) => PageOf<Group> = () => pageOf([])) {
  const log = requestLog();
  const handler = http.get('/groups', ({ request }) => {
    log.record(request);
    return HttpResponse.json(answer(new URL(request.url).searchParams));
  });
  return { handler, ...log };
}

/** GET /groups/{id}, its members, candidates and instances, from a mutable fake of one group. */
export function groupServer(group: Group | null, members: GroupMember[] = [], candidates: GroupMember[] = []) {
  const state = { group, members: [...members], candidates: [...candidates] };
  const candidateQueries = requestLog();
  const missing = () => problem(404, 'Not Found', 'No group has this id.');
  const handlers = [
    http.get('/groups/:id', () => (state.group ? HttpResponse.json(state.group) : missing())),
    http.get('/groups/:id/users', () => HttpResponse.json(pageOf(state.members))),
    http.get('/groups/:id/available-users', ({ request }) => {
      candidateQueries.record(request);
      const search = new URL(request.url).searchParams.get('search') ?? '';
      return HttpResponse.json(pageOf(state.candidates.filter((user) => user.email.includes(search))));
    }),
    http.get('/groups/:id/instances', () => HttpResponse.json(pageOf([]))),
  ];
  return { state, handlers, candidateQueries };
}
