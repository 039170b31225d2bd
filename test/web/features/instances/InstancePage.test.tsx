import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { CurrentUser } from '../../../../contracts/auth';
import type { Instance } from '../../../../contracts/instances';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin, regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import {
  aLogEntry,
  aParameter,
  allGroupsHandler,
  anInstance,
  instanceServer,
  instancesListHandler,
} from '../../handlers/instancesHandlers';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { openOptions, pickOption } from '../../pickOption';

const server = setupMsw();
beforeAll(() => import('../../../../src/features/instances/InstancePage'), 30_000);
// The first render of the console is slow in jsdom, slower still beside other suites.
jest.setTimeout(15_000);
const firstRender = { timeout: 5000 };

const orders = anInstance({ id: 'i-1', name: 'orders' });

function openInstance(who: CurrentUser, instance: Instance | null = orders, options: Parameters<typeof instanceServer>[1] = {}) {
  const fake = instanceServer(instance, options);
  server.use(meHandler(who), ...fake.handlers, instancesListHandler().handler, allGroupsHandler([{ id: 'g-1', name: 'payments' }]));
  const user = userEvent.setup();
  return { ...renderApp('/instances/i-1'), fake, user };
}

const heading = (name: string) => screen.findByRole('heading', { level: 1, name }, firstRender);
const region = (name: string) => within(screen.getByRole('region', { name }));
const operations = () => within(screen.getByRole('group', { name: 'Operations' }));
const button = (name: string) => operations().getByRole('button', { name });

describe('InstancePage', () => {
  it('shows the instance: state, details, health checks, configuration summary and its other pages', async () => {
    openInstance(admin, orders, {
      config: {
        revision: 3,
        parameters: [aParameter(), aParameter({ name: 'work_mem', value: '8MB', default: '4MB' }), aParameter({ name: 'max_connections', value: '200', default: '100' })],
        pendingRestart: ['max_connections'],
      },
      latest: { latest: false, engineVersion: '16.4', latestVersion: '16.6' },
    });
    expect(await heading('orders')).toBeInTheDocument();
    expect(screen.getByText('Orders of the shop', { selector: 'p' })).toBeInTheDocument();
    const state = within(screen.getByRole('group', { name: 'State' }));
    expect(state.getByText('PostgreSQL')).toBeInTheDocument();
    expect(state.getByText('Running')).toBeInTheDocument();
    expect(state.getByText('Good')).toBeInTheDocument();

    expect(region('Details').getByRole('link', { name: 'payments' })).toHaveAttribute('href', '/groups/g-1');
    expect(await region('Details').findByRole('link', { name: 'Update available: 16.6' })).toHaveAttribute('href', '/instances-update');
    const checks = within(region('Health checks').getByRole('table', { name: 'Health checks' }));
    expect(checks.getAllByRole('row')[1]).toHaveTextContent('accepts connectionsGoodpg_isready: accepting connections');

    const configuration = region('Configuration');
    expect(await configuration.findByText('3')).toBeInTheDocument();
    expect(configuration.getByText('2')).toBeInTheDocument();
    expect(configuration.getByText('max_connections')).toBeInTheDocument();
    expect(configuration.getByRole('link', { name: 'Edit configuration' })).toHaveAttribute('href', '/instances/i-1/configuration');

    const pages = within(screen.getByRole('navigation', { name: 'Instance pages' }));
    expect(pages.getAllByRole('link').map((link) => link.getAttribute('href'))).toEqual([
      '/instances/i-1/configuration',
      '/instances/i-1/backups/database',
      '/instances/i-1/backups/files',
      '/instances/i-1/script',
    ]);
  });

  it('offers only the operations that fit the status', async () => {
    openInstance(admin, { ...orders, status: 'stopped' });
    await heading('orders');
    expect(button('Start')).toBeEnabled();
    expect(button('Stop')).toBeDisabled();
    expect(button('Restart')).toBeDisabled();
    expect(button('Reload configuration')).toBeDisabled();
    expect(button('Clone')).toBeEnabled();
    expect(button('Delete')).toBeEnabled();
  });

  it('clones the instance under a name checked as it is typed, then opens the clone', async () => {
    const cloned: unknown[] = [];
    server.use(
      http.post('/instances/validate-name', async ({ request }) => {
        const { name } = (await request.json()) as { name: string };
        return HttpResponse.json(name === 'audit' ? { valid: false, reason: 'This name is not available.' } : { valid: true });
      }),
      http.post('/instances/:id/clone', async ({ request, params }) => {
        cloned.push({ id: params.id, body: await request.json() });
        return HttpResponse.json(anInstance({ id: 'i-9', name: 'orders-copy', status: 'unInitialized' }), { status: 202 });
      }),
    );
    const { user, location } = openInstance(admin);
    await heading('orders');
    await user.click(button('Clone'));
    const dialog = within(await screen.findByRole('dialog', { name: 'Clone orders' }));
    const name = dialog.getByRole('textbox', { name: 'New instance name' });
    await user.type(name, 'audit');
    expect(await dialog.findByText('This name is not available.')).toBeInTheDocument();
    await user.clear(name);
    await user.type(name, 'orders-copy');
    expect(await dialog.findByText(/available/i)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Clone' }));

    await waitFor(() => expect(location()).toBe('/instances/i-9'));
    expect(cloned).toEqual([{ id: 'i-1', body: { name: 'orders-copy' } }]);
  });

  it('clones a PostgreSQL server into a cluster of the size chosen', async () => {
    const cloned: unknown[] = [];
    server.use(
      http.post('/instances/validate-name', () => HttpResponse.json({ valid: true })),
      http.post('/instances/:id/clone', async ({ request }) => {
        cloned.push(await request.json());
        return HttpResponse.json(anInstance({ id: 'i-9', name: 'orders-ha', status: 'unInitialized', members: 3 }), { status: 202 });
      }),
    );
    const { user, location } = openInstance(admin);
    await heading('orders');
    await user.click(button('Clone'));
    const dialog = within(await screen.findByRole('dialog', { name: 'Clone orders' }));
    await user.type(dialog.getByRole('textbox', { name: 'New instance name' }), 'orders-ha');
    const members = dialog.getByRole('combobox', { name: 'Members' });
    expect(members).toHaveTextContent('1 member (a single server)');
    await pickOption(user, members, '3 members: a leader and two standbys');
    expect(dialog.getByText(/A cluster on Patroni: the first member takes the copy/)).toBeInTheDocument();
    expect(await dialog.findByText(/available/i)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Clone' }));
    await waitFor(() => expect(location()).toBe('/instances/i-9'));
    expect(cloned).toEqual([{ name: 'orders-ha', members: 3 }]);
  });

  it('holds every operation while one runs, and lets go when the hub says it ended', async () => {
    const { store } = openInstance(admin, { ...orders, operation: { kind: 'restart', startedAt: '2025-02-03T05:00:00.000Z' } });
    await heading('orders');
    for (const name of ['Start', 'Stop', 'Restart', 'Reload configuration', 'Clone', 'Delete']) expect(button(name)).toBeDisabled();
    expect(within(screen.getByRole('group', { name: 'State' })).getByRole('status')).toHaveTextContent('Restarting…');

    act(() => {
      store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-1', kind: 'restart', ok: true, error: null, detail: null }, 't'));
    });

    await waitFor(() => expect(button('Stop')).toBeEnabled());
    expect(screen.queryByText('Restarting…')).not.toBeInTheDocument();
    expect(await screen.findByText('orders restarted')).toBeInTheDocument();
  });

  it('restarts after a confirmation and shows the restart under way', async () => {
    const { user, fake } = openInstance(admin);
    await heading('orders');
    await user.click(button('Restart'));
    const dialog = within(await screen.findByRole('dialog', { name: 'Restart orders?' }));
    await user.click(dialog.getByRole('button', { name: 'Restart' }));

    expect(await screen.findByText('Restarting…')).toBeInTheDocument();
    expect(fake.calls).toEqual(['POST restart']);
    expect(button('Stop')).toBeDisabled();
  });

  it('shows a status change pushed by the hub without asking the server again', async () => {
    const { store, fake } = openInstance(admin);
    await heading('orders');
    expect(fake.state.reads).toBe(1);
    act(() => {
      store.dispatch(
        hubEvent(
          'InstanceStatusChanged',
          { id: 'i-1', status: 'offline', previousStatus: 'running', statusReason: 'The postmaster exited.', health: { level: 'error', checks: [] }, version: 2 },
          't',
        ),
      );
    });
    expect(await within(screen.getByRole('group', { name: 'State' })).findByText('Offline')).toBeInTheDocument();
    expect(screen.getByText('The postmaster exited.')).toBeInTheDocument();
    expect(button('Reload configuration')).toBeDisabled();
    expect(fake.state.reads).toBe(1);
  });

  it('deletes after a confirmation, stopping a running instance first, and goes back to the list', async () => {
    const { user, fake, location, store } = openInstance(admin);
    await heading('orders');
    await user.click(button('Delete'));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete orders?' }));
    expect(dialog.getByText(/It is running: it will be stopped/)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Stop and delete' }));

    expect(await heading('Instances')).toBeInTheDocument();
    expect(location()).toBe('/instances');
    expect(fake.calls).toEqual(['DELETE force']);
    expect(store.getState().ui.toasts).toEqual([
      expect.objectContaining({ summary: 'Instance deleted', detail: 'Its 2 backups are kept for 30 days.' }),
    ]);
  });

  it('keeps the instance when the deletion is not confirmed', async () => {
    const { user, fake } = openInstance(admin);
    await heading('orders');
    await user.click(button('Delete'));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete orders?' }));
    await user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(fake.calls).toEqual([]);
    expect(screen.getByRole('heading', { level: 1, name: 'orders' })).toBeInTheDocument();
  });

  it('copies the connection details', async () => {
    const { user } = openInstance(regular);
    await heading('orders');
    const connection = region('Connection');
    expect(await connection.findByText('postgresql://app@127.0.0.1:15432/app')).toBeInTheDocument();
    // user-event's clipboard stands in for the browser's; the environment's Blob cannot be read back.
    const copied = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(connection.getByRole('button', { name: 'Copy connection URI' }));
    expect(copied).toHaveBeenLastCalledWith('postgresql://app@127.0.0.1:15432/app');
    // The button says so once the clipboard's promise settles.
    await waitFor(() => expect(connection.getByRole('button', { name: 'Copy connection URI' })).toHaveTextContent('Copied'));
    await user.click(connection.getByRole('button', { name: 'Copy port' }));
    expect(copied).toHaveBeenLastCalledWith('15432');
    // Members get the owner role's password; only admins may ask for the superuser's.
    expect(connection.getByRole('button', { name: 'Reveal password' })).toBeInTheDocument();
    expect(connection.queryByRole('button', { name: 'Reveal superuser password' })).not.toBeInTheDocument();
  });

  it("reveals the owner role's password to a group member once, to copy", async () => {
    const { user, fake } = openInstance(regular, orders, { password: 'Tr0ub4dor&3' });
    await heading('orders');
    const connection = region('Connection');
    await user.click(connection.getByRole('button', { name: 'Reveal password' }));
    expect(await connection.findByLabelText('Password')).toHaveTextContent('Tr0ub4dor&3');
    expect(fake.calls).toEqual(['POST secret']);
    const copied = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(connection.getByRole('button', { name: 'Copy password' }));
    expect(copied).toHaveBeenCalledWith('Tr0ub4dor&3');

    await user.click(connection.getByRole('button', { name: 'Hide' }));
    expect(connection.queryByText('Tr0ub4dor&3')).not.toBeInTheDocument();
    expect(connection.getByRole('button', { name: 'Reveal password' })).toBeInTheDocument();
  });

  it('edits the description and, for an admin, the group', async () => {
    const bodies: unknown[] = [];
    const { user } = openInstance(admin);
    server.use(
      http.put('/instances/:id', async ({ request }) => {
        const body = (await request.json()) as Partial<Instance>;
        bodies.push(body);
        return HttpResponse.json({ ...orders, ...body, groupName: null });
      }),
    );
    await heading('orders');
    await user.click(screen.getByRole('button', { name: 'Edit details' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Edit details' }));
    await user.clear(dialog.getByLabelText('Description'));
    await user.type(dialog.getByLabelText('Description'), 'Orders, archived');
    const group = dialog.getByRole('combobox', { name: 'Group' });
    await within(await openOptions(user, group)).findByRole('option', { name: 'payments' });
    await pickOption(user, group, 'No group');
    await user.click(dialog.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(bodies).toEqual([{ description: 'Orders, archived', groupId: null }]);
  });

  it('reads the configuration of a new instance only once it is initialized', async () => {
    const fresh = anInstance({ id: 'i-1', name: 'ledger', status: 'unInitialized', engineVersion: null, operation: { kind: 'create', startedAt: 't' } });
    const { store, fake } = openInstance(admin, fresh);
    await heading('ledger');
    expect(region('Configuration').getByText('No configuration yet')).toBeInTheDocument();
    expect(region('Details').getByText('Not known yet')).toBeInTheDocument();
    expect(region('Connection').getByRole('button', { name: 'Reveal password' })).toBeDisabled();
    expect(fake.state.configReads).toBe(0);

    act(() => {
      store.dispatch(hubEvent('InstanceUpdated', { instance: { ...fresh, status: 'running', engineVersion: '16.4', operation: null } }, 't'));
    });
    expect(await region('Configuration').findByText('None saved yet')).toBeInTheDocument();
    expect(fake.state.configReads).toBe(1);
    expect(region('Connection').getByRole('button', { name: 'Reveal password' })).toBeEnabled();
  });

  it("gives etcd's owner user, an etcdctl command that asks for the password, and the password to members, never root's", async () => {
    const command = "etcdctl --endpoints=http://127.0.0.1:15479 --user=app get --prefix --keys-only ''";
    const { user, fake } = openInstance(admin, anInstance({ id: 'i-1', name: 'events', type: 'etcd' }), {
      connection: { host: '127.0.0.1', port: 15479, user: 'app', database: null, uri: 'http://127.0.0.1:15479', command, endpoints: ['http://127.0.0.1:15479'] },
      password: 'Etcd-0wner',
    });
    await heading('events');
    const connection = region('Connection');
    expect(await connection.findByText(command)).toBeInTheDocument();
    expect(connection.getByText(/Connect as the owner user/)).toBeInTheDocument();
    const copied = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(connection.getByRole('button', { name: 'Copy command' }));
    expect(copied).toHaveBeenLastCalledWith(command);
    // Even an admin gets no root password: root is the control plane's.
    expect(connection.queryByRole('button', { name: 'Reveal superuser password' })).not.toBeInTheDocument();
    expect(connection.getByRole('button', { name: 'Rotate password' })).toBeEnabled();

    await user.click(connection.getByRole('button', { name: 'Reveal password' }));
    expect(await connection.findByLabelText('Password')).toHaveTextContent('Etcd-0wner');
    expect(connection.getByText('Password of the owner user')).toBeInTheDocument();
    expect(fake.calls).toEqual(['POST secret']);
  });

  it('says when there is no such instance, or it cannot be seen', async () => {
    openInstance(regular, null);
    expect(await screen.findByText('No such instance', {}, firstRender)).toBeInTheDocument();
    expect(screen.getByText(/or you cannot see it/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to instances' })).toHaveAttribute('href', '/instances');
  });
});

describe('InstancePage: recent logs', () => {
  // The section is the Logs screen's viewer with the instance fixed; jsdom lays nothing out, so the
  // virtualized rows get a viewport here.
  beforeAll(() => {
    Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 600 });
    Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 });
  });
  const recent = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  // Newest first, as the server answers; ids fall with age.
  const log = [
    aLogEntry({ id: 5, timestamp: recent(1), level: 'error', handler: 'postgres', message: 'could not open file "pg_wal/0001"' }),
    aLogEntry({ id: 4, timestamp: recent(2), level: 'information', handler: 'backup', message: 'backup finished' }),
    aLogEntry({ id: 3, timestamp: recent(3), level: 'warning', handler: 'postgres', message: 'checkpoints are occurring too frequently' }),
    aLogEntry({ id: 2, timestamp: recent(4), level: 'debug', handler: 'postgres', message: 'autovacuum launcher started' }),
    aLogEntry({ id: 1, timestamp: recent(5), level: 'information', handler: 'postgres', message: 'database system is ready' }),
  ];
  const entries = () => within(screen.getByRole('table', { name: 'Log entries' }));
  const messages = () =>
    entries()
      .queryAllByRole('row')
      .filter((row) => row.dataset.level)
      .map((row) => `${row.dataset.level}: ${row.lastElementChild?.textContent}`);

  it("shows the instance's newest entries with their level, asking /logs/all for this instance", async () => {
    const { fake } = openInstance(admin, orders, { logs: log });
    await heading('orders');
    await waitFor(() => expect(messages()).toHaveLength(5));
    expect(messages()[0]).toBe('error: could not open file "pg_wal/0001"');
    expect(fake.logs.queries.last()).toMatchObject({ instanceId: 'i-1', pageSize: '200' });
    // No instance column: the instance is the page's.
    expect(entries().queryByRole('columnheader', { name: 'Instance' })).not.toBeInTheDocument();
  });

  it('shows what was written while the person was on another screen when they come back', async () => {
    const { fake, router } = openInstance(admin, orders, { logs: log });
    await heading('orders');
    await waitFor(() => expect(messages()).toHaveLength(5));
    await act(() => router.navigate('/instances'));
    fake.logs.state.entries = [aLogEntry({ id: 6, timestamp: new Date().toISOString(), level: 'warning', message: 'written meanwhile' }), ...log];
    await act(() => router.navigate('/instances/i-1'));
    await waitFor(() => expect(messages()[0]).toBe('warning: written meanwhile'));
  });

  it('filters by level, handler and text on the server, kept in the URL under log…', async () => {
    const { user, fake, location } = openInstance(admin, orders, { logs: log });
    await heading('orders');
    await waitFor(() => expect(messages()).toHaveLength(5));
    const logs = region('Recent logs');

    await user.click(logs.getByRole('checkbox', { name: 'Warning' }));
    await user.click(logs.getByRole('checkbox', { name: 'Error' }));
    await waitFor(() => expect(messages()).toEqual(['error: could not open file "pg_wal/0001"', 'warning: checkpoints are occurring too frequently']));
    expect(fake.logs.queries.last()).toMatchObject({ instanceId: 'i-1', level: 'warning,error' });
    expect(location()).toContain('logLevel=warning%2Cerror');

    await user.type(logs.getByRole('textbox', { name: 'Handler' }), 'backup{Enter}');
    await user.type(logs.getByRole('searchbox', { name: 'Search logs' }), 'wal');
    await waitFor(() => expect(fake.logs.queries.last()).toMatchObject({ instanceId: 'i-1', level: 'warning,error', handler: 'backup', search: 'wal' }));
  });

  it('adds lines the hub pushes at the top, without asking the server again', async () => {
    const { store, fake } = openInstance(admin, orders, { logs: log.slice(2) });
    await heading('orders');
    await waitFor(() => expect(messages()).toHaveLength(3));
    const asked = fake.logs.queries.seen.length;

    act(() => {
      store.dispatch(hubEvent('LogsAppended', { instanceId: 'i-1', entries: log.slice(0, 2).reverse(), skipped: 0 }, 't'));
    });

    await waitFor(() => expect(messages()).toHaveLength(5));
    expect(messages().slice(0, 2)).toEqual(['error: could not open file "pg_wal/0001"', 'information: backup finished']);
    expect(fake.logs.queries.seen).toHaveLength(asked);
  });

  it('says when no entry matches', async () => {
    openInstance(admin, orders, { logs: [] });
    await heading('orders');
    expect(await region('Recent logs').findByText('No entries match these filters.')).toBeInTheDocument();
  });
});
