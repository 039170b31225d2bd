import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { InstanceMember } from '../../../../contracts/instances';
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
  timeline: null,
  raftIndex: 120,
  dbSizeBytes: 20_480,
  ...overrides,
});

const cluster = anInstance({ id: 'i-1', name: 'locks', type: 'etcd', members: 3 });
const endpoints = [1, 2, 3].map((n) => `http://127.0.0.1:${15478 + 2 * n}`);

/** The instance page of a 3-member etcd cluster whose members answer `current()`, counting the reads. */
function openCluster(current: () => InstanceMember[]) {
  let reads = 0;
  const fake = instanceServer(cluster, { connection: aConnection({ port: 15480, uri: endpoints[0], endpoints }) });
  server.use(
    meHandler(admin),
    http.get('/instances/:id/members', () => {
      reads++;
      return HttpResponse.json(current());
    }),
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
    expect(within(screen.getByRole('region', { name: 'Connection' })).getByText(endpoints.join(','))).toBeInTheDocument();
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
  });
});
