import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { instancesApi } from '../../../../src/features/instances/instancesApi';
import { admin } from '../../fixtures';
import { meHandler, sessionCheckHandler } from '../../handlers/authHandlers';
import { allGroupsHandler, anInstance, instanceServer, instancesListHandler } from '../../handlers/instancesHandlers';
import { setupMsw } from '../../msw';
import { deferred } from '../realtime/fakeHub';
import { renderAppWithHub } from '../realtime/renderAppWithHub';

const server = setupMsw();
beforeAll(() => import('../../../../src/features/instances/InstancePage'), 30_000);
jest.setTimeout(15_000);

const restarting = anInstance({ id: 'i-1', name: 'orders', operation: { kind: 'restart', startedAt: '2025-02-03T05:00:00.000Z' } });

/** The instance page over a live link, the server saying a restart runs. */
function openRestarting(configure?: Parameters<typeof renderAppWithHub>[1]) {
  const fake = instanceServer(restarting);
  server.use(meHandler(admin), sessionCheckHandler(), ...fake.handlers, instancesListHandler().handler, allGroupsHandler([{ id: 'g-1', name: 'payments' }]));
  return { ...renderAppWithHub('/instances/i-1', configure), fake };
}

const operations = () => within(screen.getByRole('group', { name: 'Operations' }));
const restartShown = () => within(screen.getByRole('group', { name: 'State' })).queryByText('Restarting…');

describe('an instance’s operation comes from the server, not from a missed event', () => {
  it('reads the instance again once its group is joined: an operation that ended before the join no longer holds the page', async () => {
    const join = deferred<null>();
    const { fake, latest } = openRestarting((hub) => hub.invoke.mockImplementation(() => join.promise));
    await screen.findByRole('heading', { level: 1, name: 'orders' }, { timeout: 5000 });
    expect(restartShown()).toBeInTheDocument();
    await waitFor(() => expect(latest().invoked()).toContain('JoinInstance("i-1")'));

    // The restart ends while the join is on its way: its OperationCompleted reaches no one.
    fake.state.instance = { ...restarting, operation: null, version: 2 };
    await act(async () => join.resolve(null));

    await waitFor(() => expect(operations().getByRole('button', { name: 'Stop' })).toBeEnabled());
    expect(restartShown()).not.toBeInTheDocument();
  });

  it('reads the instance again after a reconnect: an operation that ended while the link was down no longer holds the page', async () => {
    const { fake, latest } = openRestarting();
    await screen.findByRole('heading', { level: 1, name: 'orders' }, { timeout: 5000 });
    await waitFor(() => expect(latest().invoked()).toContain('JoinInstance("i-1")'));
    await waitFor(() => expect(fake.state.reads).toBeGreaterThanOrEqual(2));
    expect(restartShown()).toBeInTheDocument();

    act(() => latest().reconnecting(new Error('WebSocket closed with status code: 1006.')));
    fake.state.instance = { ...restarting, operation: null, version: 2 };
    act(() => latest().reconnected());

    await waitFor(() => expect(operations().getByRole('button', { name: 'Stop' })).toBeEnabled());
    expect(restartShown()).not.toBeInTheDocument();
  });

  it('keeps what the hub said over an answer that left the server before the operation ended', async () => {
    const join = deferred<null>();
    const { store, latest } = openRestarting((hub) => hub.invoke.mockImplementation(() => join.promise));
    await screen.findByRole('heading', { level: 1, name: 'orders' }, { timeout: 5000 });
    await waitFor(() => expect(latest().invoked()).toContain('JoinInstance("i-1")'));

    // The read after the join is answered while the restart still runs, and that answer is slow on its way.
    const asked = deferred();
    const delivered = deferred();
    server.use(
      http.get('/instances/:id', async () => {
        asked.resolve();
        await delivered.promise;
        return HttpResponse.json(restarting);
      }),
    );
    const readAt = () => instancesApi.endpoints.instance.select('i-1')(store.getState()).fulfilledTimeStamp;
    const before = readAt();
    await act(async () => join.resolve(null));
    await act(() => asked.promise);

    // Meanwhile the restart ends, and the hub says so.
    const ended = { ...restarting, operation: null, version: 2 };
    act(() => {
      latest().push('InstanceUpdated', { instance: ended });
      latest().push('OperationCompleted', { instanceId: 'i-1', kind: 'restart', ok: true, error: null, detail: null });
    });
    await waitFor(() => expect(operations().getByRole('button', { name: 'Stop' })).toBeEnabled());

    await act(async () => delivered.resolve());
    await waitFor(() => expect(readAt()).not.toBe(before));
    await act(async () => {}); // the screen catches up with the store
    expect(restartShown()).not.toBeInTheDocument();
    expect(operations().getByRole('button', { name: 'Stop' })).toBeEnabled();
  });
});
