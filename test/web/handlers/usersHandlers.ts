import { http, HttpResponse } from 'msw';
import type { PageOf } from '../../../contracts/page';
import type { User } from '../../../contracts/users';
import { problem } from '../msw';
import { pageOf, requestLog } from './pages';

export const aUser = (overrides: Partial<User> = {}): User => ({
  id: 'u-1',
  email: 'una@example.com',
  role: 'regular',
  emailConfirmed: true,
  twoFactorEnabled: false,
  disabled: false,
  createdAt: '2025-01-02T03:04:05.000Z',
  lastLoginAt: null,
  lockedUntil: null,
  failedSignIns: 0,
  ...overrides,
});

export const rolesHandler = () => http.get('/admin/users/roles', () => HttpResponse.json(['admin', 'regular']));

/** GET /admin/users: answers what `answer` makes of the query, and logs each query. */
export function usersListHandler(answer: (query: URLSearchParams) => PageOf<User> = () => pageOf([])) {
  const log = requestLog();
  const handler = http.get('/admin/users', ({ request }) => {
    log.record(request);
    return HttpResponse.json(answer(new URL(request.url).searchParams));
  });
  return { handler, ...log };
}

/** GET /admin/users/{id} from a mutable set of users; 404 for an unknown id. */
export function userHandler(users: Map<string, User>) {
  return http.get('/admin/users/:id', ({ params }) => {
    if (params.id === 'roles') return undefined;
    const user = users.get(String(params.id));
    return user ? HttpResponse.json(user) : problem(404, 'Not Found', `No user has the id ${params.id}.`);
  });
}
