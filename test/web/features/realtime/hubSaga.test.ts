import { waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { baseApi } from '../../../../src/api/baseApi';
import { authApi } from '../../../../src/features/auth/authApi';
import { userCleared } from '../../../../src/features/auth/authSlice';
import {
  groupJoined,
  groupLeft,
  layoutEntered,
  layoutLeft,
  recentEventsKept,
  retryRequested,
} from '../../../../src/features/realtime/realtimeSlice';
import { admin } from '../../fixtures';
import { sessionCheckHandler } from '../../handlers/authHandlers';
import { problem, setupMsw } from '../../msw';
import { deferred, signedIn, storeWithFakeHub } from './fakeHub';

const server = setupMsw();
// After a reconnect the saga asks whether the session still holds: by default it does.
beforeEach(() => server.use(sessionCheckHandler()));

/** A cached list that provides the Instance tag, to see what the saga makes RTK Query refetch. */
const probeApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    instancesProbe: build.query<{ n: number }, void>({ query: () => '/instances-probe', providesTags: ['Instance'] }),
  }),
});

function countInstanceFetches() {
  const fetches = { count: 0 };
  server.use(
    http.get('/instances-probe', () => {
      fetches.count += 1;
      return HttpResponse.json({ n: fetches.count });
    }),
  );
  return fetches;
}

/** Lets pending promise callbacks and the sagas behind them run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Signed in, layout shown, connection up. */
async function connected(configure?: Parameters<typeof storeWithFakeHub>[1]) {
  const app = storeWithFakeHub(signedIn(admin), configure);
  app.store.dispatch(layoutEntered());
  await waitFor(() => expect(app.connection()).toBe('Connected'));
  return app;
}

describe('realtime saga: connecting (SPEC §4)', () => {
  it('connects when the layout is entered while signed in', async () => {
    const app = await connected();
    expect(app.createHub).toHaveBeenCalledTimes(1);
    expect(app.latest().start).toHaveBeenCalledTimes(1);
    expect(app.states()).toEqual(['Disconnected', 'Connecting', 'Connected']);
    expect(app.toasts()).toEqual([]);
  });

  it('does not connect while signed out, and connects when the person signs in', async () => {
    const app = storeWithFakeHub({ auth: { user: null, status: 'anonymous' } });
    app.store.dispatch(layoutEntered());
    await settle();
    expect(app.createHub).not.toHaveBeenCalled();
    expect(app.connection()).toBe('Disconnected');

    await app.store.dispatch(authApi.util.upsertQueryData('me', undefined, admin));

    await waitFor(() => expect(app.connection()).toBe('Connected'));
    expect(app.createHub).toHaveBeenCalledTimes(1);
  });

  it('shows Disconnected and toasts the error when the start fails', async () => {
    const app = storeWithFakeHub(signedIn(admin), (hub) =>
      hub.start.mockRejectedValue(new Error('WebSocket failed to connect. Status 401.')),
    );
    app.store.dispatch(layoutEntered());

    await waitFor(() => expect(app.connection()).toBe('Disconnected'));
    expect(app.states()).toEqual(['Disconnected', 'Connecting', 'Disconnected']);
    expect(app.store.getState().realtime.error).toBe('WebSocket failed to connect. Status 401.');
    expect(app.toasts()).toEqual([
      { status: 'error', summary: 'Websocket connection failed', detail: 'WebSocket failed to connect. Status 401.' },
    ]);
  });

  it('starts again when the login state changes while disconnected', async () => {
    const app = storeWithFakeHub(signedIn(admin), (hub, index) => {
      if (index === 0) hub.start.mockRejectedValue(new Error('refused'));
    });
    app.store.dispatch(layoutEntered());
    await waitFor(() => expect(app.toasts()).toHaveLength(1));

    app.store.dispatch(userCleared());
    await settle();
    expect(app.createHub).toHaveBeenCalledTimes(1);
    await app.store.dispatch(authApi.util.upsertQueryData('me', undefined, admin));

    await waitFor(() => expect(app.connection()).toBe('Connected'));
    expect(app.createHub).toHaveBeenCalledTimes(2);
  });

  it('does not start a second connection while one is up', async () => {
    const app = await connected();
    app.store.dispatch(layoutEntered());
    app.store.dispatch(retryRequested());
    await app.store.dispatch(authApi.util.upsertQueryData('me', undefined, admin));
    await settle();
    expect(app.createHub).toHaveBeenCalledTimes(1);
    expect(app.connection()).toBe('Connected');
  });
});

describe('realtime saga: reconnecting and giving up', () => {
  it('shows Reconnecting while the client retries, then Connected', async () => {
    const app = await connected();
    app.latest().reconnecting(new Error('WebSocket closed with status code: 1006 (no reason given).'));
    await waitFor(() => expect(app.connection()).toBe('Reconnecting'));
    expect(app.store.getState().realtime.error).toBe('WebSocket closed with status code: 1006 (no reason given).');

    app.latest().reconnected();
    await waitFor(() => expect(app.connection()).toBe('Connected'));
    expect(app.store.getState().realtime.error).toBeNull();
    expect(app.states()).toEqual(['Disconnected', 'Connecting', 'Connected', 'Reconnecting', 'Connected']);
    expect(app.toasts()).toEqual([]);
  });

  it('re-joins every joined group with its arguments after a reconnect', async () => {
    const app = await connected();
    app.store.dispatch(groupJoined({ name: 'Instances', args: [] }));
    app.store.dispatch(groupJoined({ name: 'Instance', args: ['i-1'] }));
    app.store.dispatch(groupJoined({ name: 'Logs', args: [null] }));
    await waitFor(() => expect(app.latest().invoke).toHaveBeenCalledTimes(3));
    app.latest().invoke.mockClear();

    app.latest().reconnecting(new Error('lost'));
    app.latest().reconnected();

    await waitFor(() => expect(app.latest().invoke).toHaveBeenCalledTimes(3));
    expect(app.latest().invoked()).toEqual(['JoinInstances()', 'JoinInstance("i-1")', 'JoinLogs(null)']);
  });

  it('asks GET /auth/check after a reconnect before re-joining, and signs out without re-joining on a 401', async () => {
    const checks: string[] = [];
    server.events.on('request:start', ({ request }) => {
      if (request.url.endsWith('/auth/check')) checks.push(request.method);
    });
    server.use(sessionCheckHandler(false));
    const app = await connected();
    app.store.dispatch(groupJoined({ name: 'Instances', args: [] }));
    await waitFor(() => expect(app.latest().invoke).toHaveBeenCalledTimes(1));
    app.latest().invoke.mockClear();

    app.latest().reconnecting(new Error('lost'));
    app.latest().reconnected();

    await waitFor(() => expect(app.store.getState().auth.user).toBeNull());
    server.events.removeAllListeners();
    expect(checks).toEqual(['GET']);
    expect(app.latest().invoke).not.toHaveBeenCalledWith('JoinInstances');
    expect(app.toasts()).toEqual([]);
  });

  it('re-joins after a reconnect when the session probe fails for another reason, keeping the user', async () => {
    server.use(http.get('/auth/check', () => problem(503, 'Service Unavailable')));
    const app = await connected();
    app.store.dispatch(groupJoined({ name: 'Instances', args: [] }));
    await waitFor(() => expect(app.latest().invoke).toHaveBeenCalledTimes(1));
    app.latest().invoke.mockClear();

    app.latest().reconnecting(new Error('lost'));
    app.latest().reconnected();

    await waitFor(() => expect(app.latest().invoked()).toEqual(['JoinInstances()']));
    expect(app.store.getState().auth.user).toEqual(admin);
  });

  it('refetches cached data after a reconnect, but not on the first connect', async () => {
    const fetches = countInstanceFetches();
    const app = storeWithFakeHub(signedIn(admin));
    app.store.dispatch(probeApi.endpoints.instancesProbe.initiate());
    await waitFor(() => expect(fetches.count).toBe(1));

    app.store.dispatch(layoutEntered());
    await waitFor(() => expect(app.connection()).toBe('Connected'));
    await settle();
    expect(fetches.count).toBe(1);

    app.latest().reconnecting(new Error('lost'));
    app.latest().reconnected();
    await waitFor(() => expect(fetches.count).toBe(2));
  });

  it('shows Disconnected and toasts the reason when the client gives up reconnecting', async () => {
    const app = await connected();
    app.latest().reconnecting(new Error('WebSocket closed with status code: 1006.'));
    // After the last delay (0, 2, 10, 30 s) the client closes without an error.
    app.latest().close();

    await waitFor(() => expect(app.connection()).toBe('Disconnected'));
    expect(app.states()).toEqual(['Disconnected', 'Connecting', 'Connected', 'Reconnecting', 'Disconnected']);
    expect(app.toasts()).toEqual([
      { status: 'error', summary: 'Websocket connection failed', detail: 'WebSocket closed with status code: 1006.' },
    ]);
  });

  it('toasts the error when the server closes the connection with one and the session still holds', async () => {
    server.use(http.get('/auth/me', () => HttpResponse.json(admin)));
    const app = await connected();
    app.latest().close(new Error('Server returned an error on close: The connection is too slow to keep up with events.'));

    await waitFor(() => expect(app.toasts()).toHaveLength(1));
    expect(app.connection()).toBe('Disconnected');
    expect(app.store.getState().realtime.error).toBe('Server returned an error on close: The connection is too slow to keep up with events.');
    expect(app.toasts()).toEqual([
      {
        status: 'error',
        summary: 'Websocket connection failed',
        detail: 'Server returned an error on close: The connection is too slow to keep up with events.',
      },
    ]);
    expect(app.store.getState().auth.user).toEqual(admin);
  });

  it('signs out with the server’s reason, not a connection failure, when the server ended the session (account disabled)', async () => {
    server.use(http.get('/auth/me', () => HttpResponse.json({ title: 'Unauthorized', status: 401 }, { status: 401 })));
    const app = await connected();
    app.latest().close(new Error('Server returned an error on close: Your account was disabled.'));

    await waitFor(() => expect(app.toasts()).toHaveLength(1));
    expect(app.toasts()).toEqual([{ status: 'warning', summary: 'Your account was disabled.' }]);
    expect(app.store.getState().auth.user).toBeNull();
    expect(app.connection()).toBe('Disconnected');
  });

  it('starts a new connection when the person retries after it gave up, and joins the groups there', async () => {
    const app = await connected();
    app.store.dispatch(groupJoined({ name: 'Groups', args: [] }));
    app.latest().reconnecting(new Error('lost'));
    app.latest().close();
    await waitFor(() => expect(app.connection()).toBe('Disconnected'));

    app.store.dispatch(retryRequested());

    await waitFor(() => expect(app.connection()).toBe('Connected'));
    expect(app.createHub).toHaveBeenCalledTimes(2);
    await waitFor(() => expect(app.hubs[1].invoked()).toEqual(['JoinGroups()']));
  });

  it('ignores a retry while the layout is not shown', async () => {
    const app = storeWithFakeHub(signedIn(admin));
    app.store.dispatch(retryRequested());
    await settle();
    expect(app.createHub).not.toHaveBeenCalled();
  });
});

describe('realtime saga: stopping', () => {
  it('stops the connection when the layout is left', async () => {
    const app = await connected();
    app.store.dispatch(layoutLeft());

    await waitFor(() => expect(app.connection()).toBe('Disconnected'));
    expect(app.latest().stop).toHaveBeenCalledTimes(1);
    expect(app.states()).toEqual(['Disconnected', 'Connecting', 'Connected', 'Disconnecting', 'Disconnected']);
    expect(app.toasts()).toEqual([]);
  });

  it('stops the connection when the user is cleared (a 401 anywhere)', async () => {
    const app = await connected();
    app.store.dispatch(userCleared());

    await waitFor(() => expect(app.connection()).toBe('Disconnected'));
    expect(app.latest().stop).toHaveBeenCalledTimes(1);
    expect(app.states().slice(-2)).toEqual(['Disconnecting', 'Disconnected']);
  });

  it('stops the connection when the person logs out, so the server closing it is no failure', async () => {
    const app = await connected();
    server.use(
      http.post('/auth/logout', () => {
        // The server ends the session's hub connections before it answers.
        app.latest().close(new Error('Server returned an error on close: You signed out.'));
        return new HttpResponse(null, { status: 200 });
      }),
      http.get('/auth/me', () => HttpResponse.json({ title: 'Unauthorized', status: 401 }, { status: 401 })),
    );

    await app.store.dispatch(authApi.endpoints.logout.initiate());

    await waitFor(() => expect(app.store.getState().auth.status).toBe('anonymous'));
    expect(app.latest().stop).toHaveBeenCalledTimes(1);
    expect(app.connection()).toBe('Disconnected');
    expect(app.states()).toEqual(['Disconnected', 'Connecting', 'Connected', 'Disconnecting', 'Disconnected']);
    expect(app.toasts()).toEqual([]);
  });

  it('connects again when logging out fails and the person is still signed in', async () => {
    const app = await connected();
    server.use(http.post('/auth/logout', () => HttpResponse.json({ title: 'Bad Gateway', status: 502 }, { status: 502 })));

    await app.store.dispatch(authApi.endpoints.logout.initiate());

    await waitFor(() => expect(app.createHub).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(app.connection()).toBe('Connected'));
  });

  it('stops a connection that is still starting, and never shows it Connected', async () => {
    const starting = deferred();
    const app = storeWithFakeHub(signedIn(admin), (hub) => hub.start.mockReturnValue(starting.promise));
    app.store.dispatch(layoutEntered());
    await waitFor(() => expect(app.connection()).toBe('Connecting'));

    app.store.dispatch(layoutLeft());
    await waitFor(() => expect(app.connection()).toBe('Disconnected'));
    starting.resolve();
    await settle();

    expect(app.latest().stop).toHaveBeenCalledTimes(1);
    expect(app.states()).toEqual(['Disconnected', 'Connecting', 'Disconnecting', 'Disconnected']);
  });

  it('starts the next connection only after the last one has stopped (layout left and entered at once)', async () => {
    const stopping = deferred();
    const app = storeWithFakeHub(signedIn(admin), (hub, index) => {
      if (index === 0) hub.stop.mockReturnValue(stopping.promise);
    });
    // What React's StrictMode does with the layout's effect.
    app.store.dispatch(layoutEntered());
    app.store.dispatch(layoutLeft());
    app.store.dispatch(layoutEntered());
    await waitFor(() => expect(app.connection()).toBe('Disconnecting'));
    await settle();
    expect(app.createHub).toHaveBeenCalledTimes(1);

    stopping.resolve();

    await waitFor(() => expect(app.connection()).toBe('Connected'));
    expect(app.createHub).toHaveBeenCalledTimes(2);
    await settle();
    expect(app.connection()).toBe('Connected');
  });
});

describe('realtime saga: pushed events', () => {
  it('dispatches every pushed event with its payload and keeps it, newest first', async () => {
    const app = await connected();
    const before = new Date().toISOString();
    app.latest().push('DebugMessage', { text: 'hello', from: 'ada@example.com', sentAt: '2025-01-01T00:00:00.000Z' });
    app.latest().push('InstanceStatusChanged', { id: 'i-1', status: 'running' });

    await waitFor(() => expect(app.store.getState().realtime.recent).toHaveLength(2));
    const [newest, older] = app.store.getState().realtime.recent;
    expect(newest).toMatchObject({ name: 'InstanceStatusChanged', payload: { id: 'i-1', status: 'running' } });
    expect(older).toMatchObject({ name: 'DebugMessage', payload: { text: 'hello', from: 'ada@example.com' } });
    expect(older.at >= before && older.at <= new Date().toISOString()).toBe(true);
  });

  it(`keeps only the newest ${recentEventsKept} events`, async () => {
    const app = await connected();
    for (let i = 1; i <= recentEventsKept + 5; i += 1) app.latest().push('LogsAppended', { batch: i });

    await waitFor(() => expect(app.store.getState().realtime.recent[0].payload).toEqual({ batch: recentEventsKept + 5 }));
    const recent = app.store.getState().realtime.recent;
    expect(recent).toHaveLength(recentEventsKept);
    expect(recent[recent.length - 1].payload).toEqual({ batch: 6 });
  });

  it('toasts a DebugMessage as "Message from <sender>" with its text', async () => {
    const app = await connected();
    app.latest().push('DebugMessage', { text: 'Deploy at noon', from: 'ada@example.com', sentAt: '2025-01-01T00:00:00.000Z' });

    await waitFor(() =>
      expect(app.toasts()).toEqual([{ status: 'info', summary: 'Message from ada@example.com', detail: 'Deploy at noon' }]),
    );
  });

  it('relays no events from a connection it stopped', async () => {
    const app = await connected();
    const old = app.latest();
    app.store.dispatch(layoutLeft());
    await waitFor(() => expect(app.connection()).toBe('Disconnected'));

    old.push('DebugMessage', { text: 'late', from: 'x', sentAt: '' });
    await settle();
    expect(app.store.getState().realtime.recent).toEqual([]);
  });
});

describe('realtime saga: groups', () => {
  it('joins a group once however many pages ask, and leaves it when the last one goes', async () => {
    const app = await connected();
    const instance = { name: 'Instance' as const, args: ['i-7'] };

    app.store.dispatch(groupJoined(instance));
    app.store.dispatch(groupJoined(instance));
    await settle();
    expect(app.latest().invoked()).toEqual(['JoinInstance("i-7")']);
    expect(app.store.getState().realtime.joined['Instance(i-7)'].count).toBe(2);

    app.store.dispatch(groupLeft(instance));
    await settle();
    expect(app.latest().invoked()).toEqual(['JoinInstance("i-7")']);

    app.store.dispatch(groupLeft(instance));
    await waitFor(() => expect(app.latest().invoked()).toEqual(['JoinInstance("i-7")', 'LeaveInstance("i-7")']));
    expect(app.store.getState().realtime.joined).toEqual({});
  });

  it('joins on connect what pages joined while disconnected', async () => {
    const app = storeWithFakeHub(signedIn(admin));
    app.store.dispatch(groupJoined({ name: 'Backups', args: ['i-3'] }));
    app.store.dispatch(groupJoined({ name: 'Users', args: [] }));
    app.store.dispatch(groupJoined({ name: 'Users', args: [] }));

    app.store.dispatch(layoutEntered());

    await waitFor(() => expect(app.latest().invoked()).toEqual(['JoinBackups("i-3")', 'JoinUsers()']));
  });

  it('invokes nothing while reconnecting; the reconnect joins what is held then', async () => {
    const app = await connected();
    app.store.dispatch(groupJoined({ name: 'Instances', args: [] }));
    await waitFor(() => expect(app.latest().invoked()).toEqual(['JoinInstances()']));

    app.latest().reconnecting(new Error('lost'));
    await waitFor(() => expect(app.connection()).toBe('Reconnecting'));
    app.store.dispatch(groupLeft({ name: 'Instances', args: [] }));
    app.store.dispatch(groupJoined({ name: 'Logs', args: ['i-1'] }));
    await settle();
    expect(app.latest().invoked()).toEqual(['JoinInstances()']);

    app.latest().reconnected();
    await waitFor(() => expect(app.latest().invoked()).toEqual(['JoinInstances()', 'JoinLogs("i-1")']));
  });

  it('toasts a join the server refuses', async () => {
    const app = await connected((hub) => hub.invoke.mockRejectedValue(new Error('Forbidden')));
    app.store.dispatch(groupJoined({ name: 'Users', args: [] }));

    await waitFor(() => expect(app.toasts()).toEqual([{ status: 'error', summary: 'Could not join Users', detail: 'Forbidden' }]));
  });
});
