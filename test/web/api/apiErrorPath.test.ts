import { http, HttpResponse } from 'msw';
import { fieldErrorsShownInline, problemsShownInline, refusalsShownInline } from '../../../src/api/apiErrorSaga';
import { baseApi } from '../../../src/api/baseApi';
import { setupStore } from '../../../src/app/store';
import { authApi } from '../../../src/features/auth/authApi';
import '../../../src/features/admin/usersApi';
import '../../../src/features/backups/backupsApi';
import { groupsApi as realGroupsApi } from '../../../src/features/groups/groupsApi';
import '../../../src/features/instances/configApi';
import '../../../src/features/instances/databasesApi';
import { instancesApi } from '../../../src/features/instances/instancesApi';
import '../../../src/features/pitr/pitrApi';
import { admin } from '../fixtures';
import { loginHandler, meHandler } from '../handlers/authHandlers';
import { validationProblem } from '../handlers/pages';
import { problem, setupMsw } from '../msw';

const server = setupMsw();

// A stand-in for any feature's endpoint: the error path must not care which one failed.
const groupsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    groupsPage: build.query<unknown, number>({ query: (page) => `/groups?page=${page}` }),
    runSomething: build.mutation<unknown, void>({ query: () => ({ url: '/something', method: 'POST' }) }),
  }),
});

/** A store whose user is signed in, at /groups?page=2, with navigation recorded. */
async function signedInStore() {
  const navigate = jest.fn();
  const store = setupStore(undefined, {
    navigate,
    getLocation: () => ({ pathname: '/groups', search: '?page=2', hash: '' }),
  });
  server.use(meHandler(admin));
  await store.dispatch(authApi.endpoints.me.initiate());
  expect(store.getState().auth.user).toEqual(admin);
  return { store, navigate };
}

describe('the one error path (SPEC §8)', () => {
  it('sends Accept: application/json on every call', async () => {
    const accepts: (string | null)[] = [];
    server.events.on('request:start', ({ request }) => accepts.push(request.headers.get('accept')));
    await signedInStore();
    server.events.removeAllListeners();
    expect(accepts).toEqual(['application/json']);
  });

  it("toasts 'Request failed' with the problem's detail", async () => {
    const { store, navigate } = await signedInStore();
    server.use(http.get('/groups', () => problem(500, 'Internal Server Error', 'The store is unreachable.')));

    await store.dispatch(groupsApi.endpoints.groupsPage.initiate(2));

    expect(store.getState().ui.toasts).toEqual([
      { id: expect.any(String), status: 'error', summary: 'Request failed', detail: 'The store is unreachable.' },
    ]);
    expect(store.getState().auth.user).toEqual(admin);
    expect(navigate).not.toHaveBeenCalled();
  });

  it("falls back to the problem's title when it has no detail", async () => {
    const { store } = await signedInStore();
    server.use(http.get('/groups', () => problem(409, 'Conflict')));
    await store.dispatch(groupsApi.endpoints.groupsPage.initiate(2));
    expect(store.getState().ui.toasts[0]).toMatchObject({ summary: 'Request failed', detail: 'Conflict' });
  });

  it('raises no toast for a 400 whose field errors the form shows inline: one message per failure', async () => {
    const { store } = await signedInStore();
    server.use(http.post('/groups', () => validationProblem({ name: ['must not be blank'] })));

    const result = await store.dispatch(realGroupsApi.endpoints.createGroup.initiate({ name: ' ', description: '' }));

    expect(result.error).toMatchObject({ status: 400 });
    expect(store.getState().ui.toasts).toEqual([]);
  });

  it("toasts the field messages of a 400 no form shows, never 'One or more validation errors occurred.'", async () => {
    const { store } = await signedInStore();
    server.use(
      http.post('/something', () =>
        validationProblem({ script: ['The script holds no statement to run.'], timeoutMs: ['must be <= 600000'] }),
      ),
    );

    await store.dispatch(groupsApi.endpoints.runSomething.initiate());

    expect(store.getState().ui.toasts).toEqual([
      {
        id: expect.any(String),
        status: 'error',
        summary: 'Request failed',
        detail: 'The script holds no statement to run. timeoutMs must be <= 600000.',
      },
    ]);
  });

  it('toasts the detail of a 400 without field errors', async () => {
    const { store } = await signedInStore();
    server.use(http.get('/groups', () => problem(400, 'Bad Request', 'A page holds at most 200 rows.')));
    await store.dispatch(groupsApi.endpoints.groupsPage.initiate(2));
    expect(store.getState().ui.toasts).toEqual([
      { id: expect.any(String), status: 'error', summary: 'Request failed', detail: 'A page holds at most 200 rows.' },
    ]);
  });

  it('names only calls that exist among those whose forms show field errors or problems inline', () => {
    const endpoints = Object.keys(baseApi.endpoints);
    expect([...fieldErrorsShownInline, ...problemsShownInline, ...refusalsShownInline].filter((name) => !endpoints.includes(name))).toEqual([]);
  });

  it('leaves a refused switchover to its form, which opens again with the detail: no toast', async () => {
    const { store } = await signedInStore();
    server.use(http.post('/instances/:id/cluster/switchover', () => problem(409, 'Conflict', 'Member 2 is 5000000 bytes behind the leader.')));
    await store.dispatch(instancesApi.endpoints.switchover.initiate({ id: 'i-1', candidate: 2 }));
    expect(store.getState().ui.toasts).toEqual([]);
  });

  it('on a 401 clears the user and opens login with the full path to come back to, without a toast', async () => {
    const { store, navigate } = await signedInStore();
    server.use(http.get('/groups', () => problem(401, 'Unauthorized')));

    await store.dispatch(groupsApi.endpoints.groupsPage.initiate(2));

    expect(store.getState().auth).toEqual({ user: null, status: 'anonymous' });
    expect(navigate).toHaveBeenCalledTimes(1);
    const [to] = navigate.mock.calls[0] as [string];
    expect(to).toBe('/login?returnUrl=%2Fgroups%3Fpage%3D2');
    expect(new URL(to, 'http://localhost').searchParams.get('returnUrl')).toBe('/groups?page=2');
    expect(store.getState().ui.toasts).toEqual([]);
  });

  it("toasts 'Oops, something went wrong' when the current-user call fails other than 401", async () => {
    const store = setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });
    server.use(http.get('/auth/me', () => problem(503, 'Service Unavailable', 'Starting up')));

    await store.dispatch(authApi.endpoints.me.initiate());

    expect(store.getState().ui.toasts).toEqual([
      { id: expect.any(String), status: 'error', summary: 'Oops, something went wrong' },
    ]);
  });

  it('keeps the session when the first current-user call fails other than 401, and signs in once it answers', async () => {
    const navigate = jest.fn();
    const store = setupStore(undefined, { navigate, getLocation: () => ({ pathname: '/groups', search: '', hash: '' }) });
    server.use(http.get('/auth/me', () => problem(500, 'Internal Server Error')));

    await store.dispatch(authApi.endpoints.me.initiate());

    expect(store.getState().ui.toasts).toEqual([{ id: expect.any(String), status: 'error', summary: 'Oops, something went wrong' }]);
    expect(store.getState().auth.status).toBe('unknown');
    server.use(meHandler(admin));
    await store.dispatch(authApi.endpoints.me.initiate(undefined, { forceRefetch: true }));
    expect(store.getState().auth).toEqual({ user: admin, status: 'authenticated' });
    expect(navigate).not.toHaveBeenCalled();
  });

  it('keeps a signed-in user signed in when the current-user call fails other than 401', async () => {
    const { store, navigate } = await signedInStore();
    server.use(http.get('/auth/me', () => problem(502, 'Bad Gateway')));

    await store.dispatch(authApi.endpoints.me.initiate(undefined, { forceRefetch: true }));

    expect(store.getState().auth).toEqual({ user: admin, status: 'authenticated' });
    expect(store.getState().ui.toasts).toEqual([{ id: expect.any(String), status: 'error', summary: 'Oops, something went wrong' }]);
    expect(navigate).not.toHaveBeenCalled();
  });

  it('clears the user without a toast when the current-user call answers 401', async () => {
    const { store, navigate } = await signedInStore();
    server.use(meHandler(null));

    await store.dispatch(authApi.endpoints.me.initiate(undefined, { forceRefetch: true }));

    expect(store.getState().auth).toEqual({ user: null, status: 'anonymous' });
    expect(store.getState().ui.toasts).toEqual([]);
    expect(navigate).toHaveBeenCalledWith('/login?returnUrl=%2Fgroups%3Fpage%3D2');
  });

  it("leaves a refused sign-in to the login page: no toast, no navigation", async () => {
    const navigate = jest.fn();
    const store = setupStore(undefined, { navigate, getLocation: () => ({ pathname: '/login', search: '', hash: '' }) });
    server.use(loginHandler(() => 'Failed'));

    const result = await store.dispatch(authApi.endpoints.login.initiate({ email: 'a@b.c', password: 'nope' }));

    expect(result.error).toMatchObject({ status: 401 });
    expect(store.getState().ui.toasts).toEqual([]);
    expect(navigate).not.toHaveBeenCalled();
  });

  it("toasts a sign-in that failed for another reason than a refusal", async () => {
    const store = setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });
    server.use(http.post('/auth/login', () => problem(429, 'Too Many Requests', 'Slow down.')));
    await store.dispatch(authApi.endpoints.login.initiate({ email: 'a@b.c', password: 'x' }));
    expect(store.getState().ui.toasts[0]).toMatchObject({ summary: 'Request failed', detail: 'Slow down.' });
  });

  it('toasts a network failure with its transport error', async () => {
    const { store } = await signedInStore();
    server.use(http.get('/groups', () => HttpResponse.error()));
    await store.dispatch(groupsApi.endpoints.groupsPage.initiate(2));
    expect(store.getState().ui.toasts[0]).toMatchObject({ summary: 'Request failed', detail: expect.stringContaining('Failed to fetch') });
  });
});
