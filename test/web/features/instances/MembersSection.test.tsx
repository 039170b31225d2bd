import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { ConnectionInfo, Instance, InstanceMember } from '../../../../contracts/instances';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { allGroupsHandler, anInstance, aConnection, instanceServer, instancesListHandler } from '../../handlers/instancesHandlers';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

const server = setupMsw();
beforeAll(() => import('../../../../src/features/instances/InstancePage'), 30_000);
jest.setTimeout(15_000);

const member = (ordinal: number, overrides: Partial<InstanceMember> = {}): InstanceMember => ({
  ordinal,
  name: `member ${ordinal}`,
  role: 'member',
  state: 'running',
  host: '127.0.0.1',
  port: 15478 + 2 * ordinal,
  lagBytes: null,
  lagSeconds: null,
  pendingRestart: false,
  timeline: null,
  raftIndex: 120,
  dbSizeBytes: 20_480,
  ...overrides,
});

const cluster = anInstance({ id: 'i-1', name: 'locks', type: 'etcd', members: 3 });
const endpoints = [1, 2, 3].map((n) => `http://127.0.0.1:${15478 + 2 * n}`);

/** The instance page of a cluster (3-member etcd unless given) whose members answer `current()`, counting the reads. */
function openCluster(current: () => InstanceMember[], instance: Instance = cluster, connection: ConnectionInfo = aConnection({ port: 15480, uri: endpoints[0], endpoints })) {
  let reads = 0;
  const fake = instanceServer(instance, { connection });
  server.use(
    meHandler(admin),
    http.get('/instances/:id/members', () => {
      reads++;
      return HttpResponse.json(current());
    }),
    http.get('/instances/:id/cluster/history', () => HttpResponse.json([])),
    ...fake.handlers,
    instancesListHandler().handler,
    allGroupsHandler([{ id: 'g-1', name: 'payments' }]),
  );
  return { ...renderApp('/instances/i-1'), reads: () => reads };
}

const membersTable = () => within(screen.getByRole('table', { name: 'Members' }));

describe('the members of a cluster', () => {
  it('lists each member with its role, state and address, and every endpoint to connect to', async () => {
    openCluster(() => [member(1, { role: 'leader' }), member(2), member(3)]);
    await screen.findByRole('heading', { level: 1, name: 'locks' }, { timeout: 5000 });
    const rows = await waitFor(() => {
      const found = membersTable().getAllByRole('row').slice(1);
      expect(found).toHaveLength(3);
      return found;
    });
    expect(within(rows[0]).getByText('Leader')).toBeInTheDocument();
    expect(within(rows[1]).getByText('Member')).toBeInTheDocument();
    expect(within(rows[2]).getByText('127.0.0.1:15484')).toBeInTheDocument();
    expect(rows.map((row) => within(row).getByText('Running'))).toHaveLength(3);
    const connection = within(screen.getByRole('region', { name: 'Connection' }));
    expect(connection.getByText(endpoints.join(','))).toBeInTheDocument();
    expect(connection.getByRole('button', { name: 'Copy endpoints' })).toBeInTheDocument();
  });

  it("gives a PostgreSQL cluster's read-write and read-only addresses, its multi-host URI and every member's address", async () => {
    const members = ['127.0.0.1:15432', '127.0.0.1:15434', '127.0.0.1:15436'];
    const multiHostUri = `postgresql://app@${members.join(',')}/app?target_session_attrs=read-write`;
    openCluster(
      () => [member(1, { role: 'leader' }), member(2, { role: 'replica' }), member(3, { role: 'replica' })],
      anInstance({ id: 'i-1', name: 'ledger', type: 'pg', members: 3 }),
      aConnection({ port: 15440, readWrite: '127.0.0.1:15440', readOnly: '127.0.0.1:15441', multiHostUri, endpoints: members }),
    );
    const user = userEvent.setup();
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, { timeout: 5000 });
    const connection = within(screen.getByRole('region', { name: 'Connection' }));
    await connection.findByText('127.0.0.1:15440');
    expect(connection.getAllByRole('term').map((term) => term.textContent)).toEqual([
      'Host',
      'Port',
      'Read-write address',
      'Read-only address',
      'Multi-host URI',
      'Members',
      'User',
      'Database',
      'Connection URI',
      'Command',
    ]);
    expect(connection.getByText('127.0.0.1:15441')).toBeInTheDocument();
    expect(connection.getByText(members.join(','))).toBeInTheDocument();

    const copied = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(connection.getByRole('button', { name: 'Copy read-write address' }));
    expect(copied).toHaveBeenLastCalledWith('127.0.0.1:15440');
    await user.click(connection.getByRole('button', { name: 'Copy read-only address' }));
    expect(copied).toHaveBeenLastCalledWith('127.0.0.1:15441');
    await user.click(connection.getByRole('button', { name: 'Copy multi-host URI' }));
    expect(copied).toHaveBeenLastCalledWith(multiHostUri);
    await user.click(connection.getByRole('button', { name: 'Copy member addresses' }));
    expect(copied).toHaveBeenLastCalledWith(members.join(','));
  });

  it('reads the members again when the hub says the instance changed: a lost member shows as stopped', async () => {
    let lost = false;
    const { store, reads } = openCluster(() => [member(1, { role: lost ? 'member' : 'leader', state: lost ? 'stopped' : 'running' }), member(2, { role: lost ? 'leader' : 'member' }), member(3)]);
    await waitFor(() => expect(membersTable().getAllByText('Running')).toHaveLength(3));
    const before = reads();

    lost = true;
    act(() => {
      store.dispatch(
        hubEvent(
          'InstanceStatusChanged',
          { id: 'i-1', status: 'running', previousStatus: 'running', statusReason: null, health: { level: 'warn', checks: [] }, version: 5 },
          't',
        ),
      );
    });
    await waitFor(() => expect(membersTable().getByText('Stopped')).toBeInTheDocument());
    expect(reads()).toBe(before + 1);
    const rows = membersTable().getAllByRole('row').slice(1);
    // A stopped member has no role; the new leader is named.
    expect(within(rows[0]).getByText('—', { selector: 'td' })).toBeInTheDocument();
    expect(within(rows[1]).getByText('Leader')).toBeInTheDocument();
  });

  it('shows no members table for a single instance', async () => {
    const fake = instanceServer(anInstance({ id: 'i-1', name: 'orders' }));
    server.use(meHandler(admin), ...fake.handlers, instancesListHandler().handler, allGroupsHandler([{ id: 'g-1', name: 'payments' }]));
    renderApp('/instances/i-1');
    await screen.findByRole('heading', { level: 1, name: 'orders' }, { timeout: 5000 });
    await screen.findByRole('region', { name: 'Connection' });
    expect(screen.queryByRole('region', { name: 'Members' })).not.toBeInTheDocument();
    expect(screen.queryByText('Endpoints')).not.toBeInTheDocument();
    expect(screen.queryByText('Read-write address')).not.toBeInTheDocument();
  });
});
