import { act, screen, waitFor, within } from '@testing-library/react';
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
});
