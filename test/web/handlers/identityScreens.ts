import { http, HttpResponse } from 'msw';
import { registrationOptionsHandler } from './accountHandlers';
import { aGroup, groupServer, groupsListHandler } from './groupsHandlers';
import { pageOf } from './pages';
import { aUser, rolesHandler } from './usersHandlers';

/**
 * Quiet answers to every call the identity screens make on opening (sign-in, profile, users,
 * groups), for tests that only open a screen — the router's and the guard's — so that no call
 * goes unhandled.
 */
export function identityScreensAtRest() {
  return [
    registrationOptionsHandler(false),
    http.get('/auth/profile', () =>
      HttpResponse.json({ ...aUser({ id: 'u-admin', email: 'ada@example.com', role: 'admin' }), groups: [] }),
    ),
    http.get('/admin/users', () => HttpResponse.json(pageOf([]))),
    rolesHandler(),
    http.get('/admin/users/:id', ({ params }) => (params.id === 'roles' ? undefined : HttpResponse.json(aUser({ id: String(params.id) })))),
    groupsListHandler().handler,
    ...groupServer(aGroup()).handlers,
  ];
}
