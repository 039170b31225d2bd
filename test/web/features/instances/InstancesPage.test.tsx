import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { CurrentUser } from '../../../../contracts/auth';
import type { Instance } from '../../../../contracts/instances';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin, regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { allGroupsHandler, anInstance, instancesListHandler } from '../../handlers/instancesHandlers';
import { pageOf } from '../../handlers/pages';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { openOptions, pickOption } from '../../pickOption';

const server = setupMsw();
// The screen is a lazy route: load its chunk once, so the first test does not pay for it.
beforeAll(() => import('../../../../src/features/instances/InstancesPage'), 30_000);
// The first render of the console is slow in jsdom, slower still beside other suites.
jest.setTimeout(15_000);
const firstRender = { timeout: 5000 };

const orders = anInstance({ id: 'i-1', name: 'orders', status: 'running' });
const audit = anInstance({
  id: 'i-2',
  name: 'audit',
  type: 'etcd',
  status: 'stopped',
  health: { level: 'warn', checks: [] },
  groupId: null,
  groupName: null,
  engineVersion: '3.5.16',
});
const events = anInstance({ id: 'i-3', name: 'events', status: 'running', operation: { kind: 'restart', startedAt: 't' } });

function openInstances(who: CurrentUser, path = '/instances', instances: Instance[] = [orders, audit]) {
  const list = instancesListHandler(() => pageOf(instances));
  server.use(meHandler(who), list.handler, allGroupsHandler([{ id: 'g-1', name: 'payments' }]));
  const user = userEvent.setup();
  return { ...renderApp(path), list, user };
}

const table = async () => within(await screen.findByRole('table', { name: 'Instances' }, firstRender));
const rowOf = async (name: string) => (await table()).getByRole('link', { name }).closest('tr') as HTMLElement;

describe('InstancesPage', () => {
  it('lists the instances with type, status, health and group, each leading to its page', async () => {
    openInstances(admin);
    const rows = (await table()).getAllByRole('row').slice(1);
    const cells = rows.map((row) => within(row).getAllByRole('cell').slice(1, 6).map((cell) => cell.textContent));
    expect(cells).toEqual([
      ['orders', 'PostgreSQL', 'Running', 'Good', 'payments'],
      ['audit', 'etcd', 'Stopped', 'Warning', '—'],
    ]);
    expect((await table()).getByRole('link', { name: 'orders' })).toHaveAttribute('href', '/instances/i-1');
    expect(screen.getByRole('link', { name: 'Create instance' })).toHaveAttribute('href', '/instances/create');
  });

  it('says how many members a cluster has, and shows a cluster missing one as degraded', async () => {
    const ledger = { ...orders, id: 'i-3', name: 'ledger', members: 3, health: { level: 'warn' as const, checks: [{ name: 'members', level: 'warn' as const, message: '2 of 3 members running' }] } };
    openInstances(admin, '/instances', [ledger]);
    const cells = within(await rowOf('ledger')).getAllByRole('cell').slice(1, 5).map((cell) => cell.textContent);
    expect(cells).toEqual(['ledger', 'PostgreSQL · 3 members', 'Running', 'Warning']);
  });

  it('links to the instance creation graph and the instances update screens', async () => {
    openInstances(admin);
    expect(await screen.findByRole('link', { name: 'Instance creation graph' })).toHaveAttribute('href', '/graphs/instance-creation');
    expect(screen.getByRole('link', { name: 'Instances update' })).toHaveAttribute('href', '/instances-update');
  });

  it('shows an operation under way beside the status', async () => {
    openInstances(admin, '/instances', [events]);
    expect(within(await rowOf('events')).getByRole('status')).toHaveTextContent('Restarting…');
  });

  it('filters on the server, with every choice in the URL', async () => {
    const { list, user, location } = openInstances(admin, '/instances?page=2');
    await table();
    expect(list.last()).toEqual({ page: '2', pageSize: '25' });

    // Each choice is made once the list asked for the last one, as a person would see it first.
    const choose = async (filter: string, option: string, query: Record<string, string>) => {
      await pickOption(user, screen.getByRole('combobox', { name: filter }), option);
      await waitFor(() => expect(list.last()).toEqual({ page: '1', pageSize: '25', ...query }));
    };
    await choose('Type', 'etcd', { type: 'etcd' });
    await choose('Status', 'Stopped', { type: 'etcd', status: 'stopped' });
    await choose('Health', 'Warning', { type: 'etcd', status: 'stopped', health: 'warn' });
    await choose('Group', 'No group', { type: 'etcd', status: 'stopped', health: 'warn', groupId: 'none' });
    expect(location()).toBe('/instances?type=etcd&status=stopped&health=warn&groupId=none');
  });

  it('searches and sorts on the server, keeping the filters', async () => {
    const { list, user, location } = openInstances(admin, '/instances?type=pg');
    await table();
    await user.click(screen.getByRole('button', { name: 'Health' }));
    await waitFor(() => expect(list.last().sort).toBe('health'));
    await user.click(screen.getByRole('button', { name: 'Health' }));
    await waitFor(() => expect(list.last().sort).toBe('-health'));
    await user.type(screen.getByRole('searchbox', { name: 'Search instances' }), 'ord');
    await waitFor(() => expect(list.last()).toEqual({ page: '1', pageSize: '25', type: 'pg', sort: '-health', search: 'ord' }));
    expect(location()).toBe('/instances?type=pg&sort=-health&search=ord');
  });

  it('reads the filters back from the URL, and offers a regular user only their groups', async () => {
    const { list, user } = openInstances(regular, '/instances?status=running&groupId=g-1');
    await table();
    expect(list.last()).toEqual({ page: '1', pageSize: '25', status: 'running', groupId: 'g-1' });
    expect(screen.getByRole('combobox', { name: 'Status' })).toHaveValue('running');
    const groups = within(await openOptions(user, screen.getByRole('combobox', { name: 'Group' }))).getAllByRole('option');
    expect(groups.map((option) => option.textContent)).toEqual(['Any group', 'payments']);
  });

  it('shows a status change pushed by the hub at once, without asking the server again', async () => {
    const { list, store } = openInstances(admin);
    expect(within(await rowOf('orders')).getByText('Running')).toBeInTheDocument();
    const asked = list.seen.length;

    act(() => {
      store.dispatch(
        hubEvent(
          'InstanceStatusChanged',
          { id: 'i-1', status: 'offline', previousStatus: 'running', statusReason: 'The process exited.', health: { level: 'error', checks: [] }, version: 2 },
          't',
        ),
      );
    });

    // The store tells subscribers of cache patches on the next frame.
    const row = within(await rowOf('orders'));
    expect(await row.findByText('Offline')).toHaveAttribute('title', 'The process exited.');
    expect(row.getByText('Error')).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(list.seen).toHaveLength(asked);
  });

  it('stops the selected instances after a confirmation naming how many', async () => {
    const stopped: string[] = [];
    server.use(
      http.post('/instances/:id/stop', ({ params }) => {
        stopped.push(String(params.id));
        return HttpResponse.json({ ...orders, operation: { kind: 'stop', startedAt: 't' } }, { status: 202 });
      }),
    );
    const { user } = openInstances(admin, '/instances', [orders, audit, events]);
    await table();
    expect(screen.getByRole('button', { name: 'Stop selected' })).toBeDisabled();

    await user.click(screen.getByRole('checkbox', { name: 'Select all on this page' }));
    expect(screen.getByText('3 selected')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Select audit' }));
    expect(screen.getByText('2 selected')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Stop selected' }));

    const dialog = within(await screen.findByRole('dialog', { name: 'Stop 2 instances?' }));
    expect(dialog.getByText('orders, events.')).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Stop 2 instances' }));
    await waitFor(() => expect(stopped.sort()).toEqual(['i-1', 'i-3']));
    // The answer's operation shows in the row at once.
    expect(await within(await rowOf('orders')).findByText('Stopping…')).toBeInTheDocument();
  });

  it('says when nothing matches the filters', async () => {
    openInstances(admin, '/instances?type=etcd', []);
    expect(await screen.findByText('No instances match.', {}, firstRender)).toBeInTheDocument();
    expect(screen.queryByRole('toolbar', { name: 'Selected instances' })).not.toBeInTheDocument();
  });

  it('says when a regular user’s groups have no instances yet', async () => {
    openInstances(regular, '/instances', []);
    expect(await screen.findByText('No instances in your groups yet.', {}, firstRender)).toBeInTheDocument();
  });

  it('offers a retry when the list cannot be loaded', async () => {
    let fail = true;
    server.use(meHandler(admin), allGroupsHandler(), http.get('/instances', () => (fail ? problem(500, 'Internal Server Error') : HttpResponse.json(pageOf([orders])))));
    const user = userEvent.setup();
    renderApp('/instances');
    expect(await screen.findByText('Could not load instances.', {}, firstRender)).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await (await table()).findByRole('link', { name: 'orders' })).toBeInTheDocument();
  });
});
