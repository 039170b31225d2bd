import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import type { Host } from '../../../../contracts/hosts';
import { formatDateTime } from '../../../../src/components/DateTime';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aHost, hostsHandlers } from '../../handlers/hostsHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { renderAppWithHub } from '../realtime/renderAppWithHub';

beforeAll(() => import('../../../../src/features/hosts/HostsPage'), 30_000);

const server = setupMsw();

/** The hosts screen of a signed-in admin, over these hosts. */
function openHosts(hosts: Host[]) {
  const api = hostsHandlers(hosts);
  server.use(meHandler(admin), ...api.handlers);
  return { ...renderApp('/admin/hosts'), ...api, user: userEvent.setup() };
}

const table = () => screen.findByRole('table', { name: 'Hosts' }, { timeout: 10_000 });
/** The row of the host named `name`. */
const rowOf = async (name: string) => (await within(await table()).findByText(name)).closest('tr') as HTMLElement;
const cellsOf = (row: HTMLElement) => within(row).getAllByRole('cell');

describe('HostsPage', () => {
  it('lists each host with its address, state, figures, agent and how long ago it was heard from', async () => {
    const heardAt = new Date(Date.now() - 12_000).toISOString();
    openHosts([aHost({ lastHeartbeatAt: heardAt })]);
    const cells = cellsOf(await rowOf('alpha'));

    expect(within(cells[0]).getByText('10.0.0.5')).toBeInTheDocument();
    expect(cells.slice(1, 8).map((cell) => cell.textContent)).toEqual(['Online', '3', '8', '16 GB', '250 GB', '97 free of 5433–5532', '0.1.0']);
    const heard = within(cells[8]).getByText(/^\d+ s ago$/);
    expect(heard).toHaveAttribute('title', formatDateTime(heardAt, { seconds: true }));
    expect(heard).toHaveAttribute('datetime', heardAt);
    expect(within(cells[9]).getByRole('button', { name: 'Drain host alpha' })).toHaveTextContent('Drain');

    expect(screen.getByRole('heading', { level: 1, name: 'Hosts' })).toBeInTheDocument();
    expect(screen.getByText(/A host is lost once it misses 3 heartbeats \(one every 5 s\)\./)).toBeInTheDocument();
  });

  it('shows a lost host as Lost and a draining one as Draining, with Stop draining', async () => {
    openHosts([
      aHost({ id: 'h-1', name: 'alpha', state: 'lost', lostAt: '2025-03-01T00:05:00.000Z' }),
      aHost({ id: 'h-2', name: 'beta', draining: true }),
    ]);
    const alpha = await rowOf('alpha');
    expect(cellsOf(alpha)[1]).toHaveTextContent(/^Lost$/);
    const beta = await rowOf('beta');
    expect(cellsOf(beta)[1]).toHaveTextContent(/^OnlineDraining$/);
    expect(within(beta).getByRole('button', { name: 'Stop draining host beta' })).toHaveTextContent('Stop draining');
  });

  it('drains a host only once the question is answered yes, by keyboard alone, and shows it draining', async () => {
    const { user, puts, store } = openHosts([aHost()]);
    const row = await rowOf('alpha');

    within(row).getByRole('button', { name: 'Drain host alpha' }).focus();
    await user.keyboard('{Enter}');
    const question = await screen.findByRole('dialog', { name: 'Drain host alpha?' });
    expect(question).toHaveTextContent('It keeps its instances, but no new instance is placed on it.');
    await user.click(within(question).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(puts).toEqual([]);

    await user.click(within(row).getByRole('button', { name: 'Drain host alpha' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Drain host alpha?' })).getByRole('button', { name: 'Drain' }));

    await waitFor(() => expect(cellsOf(row)[1]).toHaveTextContent(/^OnlineDraining$/));
    expect(puts).toEqual([{ id: 'h-1', body: { draining: true } }]);
    expect(within(row).getByRole('button', { name: 'Stop draining host alpha' })).toBeInTheDocument();
    expect(store.getState().ui.toasts).toEqual([
      expect.objectContaining({ status: 'success', summary: 'Host draining', detail: 'alpha keeps its instances but gets no new ones.' }),
    ]);
  });

  it('stops draining at once, without a question', async () => {
    const { user, puts, store } = openHosts([aHost({ draining: true })]);
    const row = await rowOf('alpha');
    await user.click(within(row).getByRole('button', { name: 'Stop draining host alpha' }));

    await waitFor(() => expect(cellsOf(row)[1]).toHaveTextContent(/^Online$/));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(puts).toEqual([{ id: 'h-1', body: { draining: false } }]);
    expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ status: 'success', summary: 'Draining stopped' })]);
  });

  it('toasts a refused drain with the server’s words and leaves the host as it was', async () => {
    const { user, store } = openHosts([aHost()]);
    server.use(http.put('/hosts/:id', () => problem(404, 'Not Found', 'No host has the id h-1.')));
    const row = await rowOf('alpha');
    await user.click(within(row).getByRole('button', { name: 'Drain host alpha' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Drain host alpha?' })).getByRole('button', { name: 'Drain' }));

    await waitFor(() =>
      expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ status: 'error', summary: 'Request failed', detail: 'No host has the id h-1.' })]),
    );
    expect(cellsOf(row)[1]).toHaveTextContent(/^Online$/);
    expect(within(row).getByRole('button', { name: 'Drain host alpha' })).toBeInTheDocument();
  });

  it('says when no host has registered yet', async () => {
    openHosts([]);
    expect(await screen.findByText(/^No host has registered yet/, undefined, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('offers a retry when the list cannot be read, and shows it once it can', async () => {
    let fail = true;
    const { user } = openHosts([aHost()]);
    server.use(http.get('/hosts', () => (fail ? problem(500, 'Internal Server Error', 'The store is unreachable.') : undefined)));
    expect(await screen.findByText('Could not load hosts.', undefined, { timeout: 10_000 })).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await rowOf('alpha')).toBeInTheDocument();
  });

  it('reads the list again at the heartbeat’s pace, which the hub does not announce', async () => {
    const hosts = [aHost({ instanceCount: 3 })];
    const api = hostsHandlers(hosts, 300);
    server.use(meHandler(admin), ...api.handlers);
    renderApp('/admin/hosts');
    const row = await rowOf('alpha');
    hosts[0].instanceCount = 4;
    await waitFor(() => expect(cellsOf(row)[2]).toHaveTextContent(/^4$/), { timeout: 2000 });
  });

  it('reads the list again when the hub says a host changed', async () => {
    const hosts = [aHost()];
    // Heartbeats an hour apart: no poll of the list can stand in for the event.
    const api = hostsHandlers(hosts, 3_600_000);
    server.use(meHandler(admin), ...api.handlers);
    const app = renderAppWithHub('/admin/hosts');
    const row = await rowOf('alpha');
    await waitFor(() => expect(app.store.getState().realtime.connection).toBe('Connected'));
    const reads = api.gets.length;

    // Another admin drained it, and it was then lost.
    Object.assign(hosts[0], { draining: true, state: 'lost', lostAt: new Date().toISOString() });
    act(() => app.latest().push('HostChanged', { host: hosts[0], change: 'lost' }));

    await waitFor(() => expect(cellsOf(row)[1]).toHaveTextContent(/^LostDraining$/));
    expect(api.gets.length).toBe(reads + 1);
  });
});
