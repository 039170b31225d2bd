import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { CurrentUser } from '../../../../contracts/auth';
import type { ClusterHistoryEntry, ClusterTiming } from '../../../../contracts/clusters';
import type { HealthCheck, Instance, InstanceMember, OperationKind } from '../../../../contracts/instances';
import { formatDateTime } from '../../../../src/components/DateTime';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin, regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { allGroupsHandler, anInstance, instanceServer, instancesListHandler } from '../../handlers/instancesHandlers';
import { problem, setupMsw } from '../../msw';
import { pickOption } from '../../pickOption';
import { renderApp } from '../../renderApp';

const server = setupMsw();
beforeAll(() => import('../../../../src/features/instances/InstancePage'), 30_000);
jest.setTimeout(15_000);
const firstRender = { timeout: 5000 };

const pgMember = (ordinal: number, overrides: Partial<InstanceMember> = {}): InstanceMember => ({
  ordinal,
  name: `i-1-${ordinal}`,
  role: 'replica',
  state: 'running',
  host: '127.0.0.1',
  port: 15432 + 2 * ordinal,
  lagBytes: 0,
  lagSeconds: 0,
  pendingRestart: false,
  timeline: 2,
  raftIndex: null,
  dbSizeBytes: null,
  ...overrides,
});

const goodChecks: HealthCheck[] = [
  { name: 'members', level: 'good', message: '3 of 3 members running' },
  { name: 'leader', level: 'good', message: 'member 1 leads on timeline 2' },
];
const pausedCheck: HealthCheck = { name: 'failover', level: 'warn', message: 'automatic failover is paused (maintenance)' };

const ledger = anInstance({ id: 'i-1', name: 'ledger', type: 'pg', members: 3, health: { level: 'good', checks: goodChecks } });
const leaderAndStandbys = [
  pgMember(1, { role: 'leader', lagBytes: null }),
  pgMember(2, { role: 'sync_standby', lagBytes: 0 }),
  pgMember(3, { lagBytes: 5_000_000 }),
];

const operationOf: Record<string, OperationKind> = {
  switchover: 'switchover',
  failover: 'failover',
  pause: 'pause',
  resume: 'resume',
  restart: 'restartMember',
  reinitialize: 'reinitializeMember',
};

const fastTiming: ClusterTiming = { preset: 'fast', synchronous: true, ttl: 20, loopWait: 1, retryTimeout: 9, checkIntervalMs: 500, checkFall: 2, worstCaseSeconds: 22 };

interface Options {
  who?: CurrentUser;
  instance?: Instance;
  members?: InstanceMember[];
  history?: ClusterHistoryEntry[];
  /** What the server says to the nth switchover (0-based); accepted unless this gives an answer. */
  switchoverAnswer?: (n: number) => Response | undefined;
}

/** The page of a PostgreSQL cluster; each POST of its operations is written down with its body and accepted (202). */
function openLedger({ who = admin, instance = ledger, members = leaderAndStandbys, history = [], switchoverAnswer }: Options = {}) {
  const posts: { path: string; body: unknown }[] = [];
  let memberReads = 0;
  const accepted = (action: string) =>
    HttpResponse.json({ ...instance, operation: { kind: operationOf[action], startedAt: '2025-02-03T05:00:00.000Z' }, version: instance.version + 1 }, { status: 202 });
  server.use(
    meHandler(who),
    http.get('/instances/:id/members', () => {
      memberReads += 1;
      return HttpResponse.json(members);
    }),
    http.get('/instances/:id/cluster/history', () => HttpResponse.json(history)),
    http.get('/instances/:id/cluster/timing', () => HttpResponse.json(fastTiming)),
    http.post('/instances/:id/cluster/:action', async ({ params, request }) => {
      const action = String(params.action);
      const n = posts.filter((post) => post.path === 'cluster/switchover').length;
      posts.push({ path: `cluster/${action}`, body: await request.json() });
      return (action === 'switchover' && switchoverAnswer?.(n)) || accepted(action);
    }),
    http.post('/instances/:id/members/:ordinal/:action', async ({ params, request }) => {
      posts.push({ path: `members/${String(params.ordinal)}/${String(params.action)}`, body: await request.json() });
      return accepted(String(params.action));
    }),
    ...instanceServer(instance).handlers,
    instancesListHandler().handler,
    allGroupsHandler([{ id: 'g-1', name: 'payments' }]),
  );
  return { ...renderApp('/instances/i-1'), posts, memberReads: () => memberReads, user: userEvent.setup() };
}

const members = () => within(screen.getByRole('region', { name: 'Members' }));
/** The members' rows, once they are read. */
const memberRows = () =>
  waitFor(() => {
    const rows = within(screen.getByRole('table', { name: 'Members' })).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(3);
    return rows;
  });

describe('the members of a PostgreSQL cluster', () => {
  it('shows each member’s timeline and lag behind the leader instead of raft index and database size', async () => {
    openLedger({
      members: [
        pgMember(1, { role: 'leader', lagBytes: null, lagSeconds: null }),
        pgMember(2, { role: 'sync_standby', lagBytes: 0, pendingRestart: true }),
        pgMember(3, { lagBytes: 5_000_000, lagSeconds: 12.4, timeline: null }),
      ],
    });
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    const rows = await memberRows();
    const table = within(screen.getByRole('table', { name: 'Members' }));
    expect(table.getAllByRole('columnheader').map((header) => header.textContent)).toEqual(['Member', 'Role', 'State', 'Address', 'Timeline', 'Lag', 'Actions']);
    expect(within(rows[0]).getAllByRole('cell').slice(4, 6).map((cell) => cell.textContent)).toEqual(['2', '—']);
    expect(within(rows[1]).getAllByRole('cell').slice(4, 6).map((cell) => cell.textContent)).toEqual(['2', '0 B · 0.0 s']);
    expect(within(rows[2]).getAllByRole('cell').slice(4, 6).map((cell) => cell.textContent)).toEqual(['—', '5.0 MB · 12 s']);
    // A parameter change waiting for its restart shows on the member that holds it.
    expect(within(rows[1]).getByText('Restart pending')).toBeInTheDocument();
    expect(within(rows[0]).queryByText('Restart pending')).not.toBeInTheDocument();
    expect(within(rows[1]).getByText('Sync standby')).toBeInTheDocument();
    expect(
      members().getByText("3 members: the cluster's writes go to the leader through the read-write address; a replica takes over when the leader is lost."),
    ).toBeInTheDocument();
  });

  it('keeps raft index and database size for an etcd cluster, which grows by a member and shrinks by its last after a confirmation', async () => {
    const etcd = (ordinal: number, role: InstanceMember['role']) => pgMember(ordinal, { role, lagBytes: null, timeline: null, raftIndex: 120, dbSizeBytes: 20_480 });
    const changes: string[] = [];
    server.use(
      http.post('/instances/:id/members', () => {
        changes.push('add');
        return HttpResponse.json({ ...locks, operation: { kind: 'addMember', startedAt: '2025-02-03T05:00:00.000Z' }, version: locks.version + 1 }, { status: 202 });
      }),
      http.delete('/instances/:id/members/:ordinal', ({ params }) => {
        changes.push(`remove ${String(params.ordinal)}`);
        return HttpResponse.json({ ...locks, operation: { kind: 'removeMember', startedAt: '2025-02-03T05:00:00.000Z' }, version: locks.version + 1 }, { status: 202 });
      }),
    );
    const locks = anInstance({ id: 'i-1', name: 'locks', type: 'etcd', members: 3 });
    const { user } = openLedger({ instance: locks, members: [etcd(1, 'leader'), etcd(2, 'member'), etcd(3, 'member')] });
    await screen.findByRole('heading', { level: 1, name: 'locks' }, firstRender);
    await memberRows();
    const table = within(screen.getByRole('table', { name: 'Members' }));
    expect(table.getAllByRole('columnheader').map((header) => header.textContent)).toEqual(['Member', 'Role', 'State', 'Address', 'Raft index', 'Database size', 'Actions']);
    expect(screen.queryByRole('region', { name: 'Failovers and switchovers' })).not.toBeInTheDocument();
    // Only the last member is offered for removal: members keep their numbers.
    expect(members().queryByRole('button', { name: 'Remove member 2' })).not.toBeInTheDocument();

    await user.click(members().getByRole('button', { name: 'Remove member 3' }));
    const question = within(await screen.findByRole('dialog', { name: 'Remove member 3 of locks?' }));
    await user.click(question.getByRole('button', { name: 'Remove member 3' }));
    await waitFor(() => expect(changes).toEqual(['remove 3']));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // The operation under way holds the buttons until it ends.
    await waitFor(() => expect(members().getByRole('button', { name: 'Add member' })).toBeDisabled());
  });

  it('adds a member to an etcd cluster at once: growing asks nothing', async () => {
    const etcd = (ordinal: number, role: InstanceMember['role']) => pgMember(ordinal, { role, lagBytes: null, timeline: null, raftIndex: 120, dbSizeBytes: 20_480 });
    const locks = anInstance({ id: 'i-1', name: 'locks', type: 'etcd', members: 3 });
    const added: string[] = [];
    server.use(
      http.post('/instances/:id/members', () => {
        added.push('add');
        return HttpResponse.json({ ...locks, operation: { kind: 'addMember', startedAt: '2025-02-03T05:00:00.000Z' }, version: locks.version + 1 }, { status: 202 });
      }),
    );
    const { user } = openLedger({ instance: locks, members: [etcd(1, 'leader'), etcd(2, 'member'), etcd(3, 'member')] });
    await screen.findByRole('heading', { level: 1, name: 'locks' }, firstRender);
    await memberRows();
    await user.click(members().getByRole('button', { name: 'Add member' }));
    await waitFor(() => expect(added).toEqual(['add']));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('adds a replica to a PostgreSQL cluster, and removes the last one after asking; the leader is never offered for removal', async () => {
    const changes: string[] = [];
    server.use(
      http.post('/instances/:id/members', () => {
        changes.push('add');
        return HttpResponse.json({ ...ledger, operation: { kind: 'addMember', startedAt: '2025-02-03T05:00:00.000Z' }, version: ledger.version + 1 }, { status: 202 });
      }),
      http.delete('/instances/:id/members/:ordinal', ({ params }) => {
        changes.push(`remove ${String(params.ordinal)}`);
        return HttpResponse.json({ ...ledger, operation: { kind: 'removeMember', startedAt: '2025-02-03T05:00:00.000Z' }, version: ledger.version + 1 }, { status: 202 });
      }),
    );
    const { user } = openLedger();
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    await memberRows();
    expect(members().queryByRole('button', { name: 'Remove member 1' })).not.toBeInTheDocument();
    expect(members().queryByRole('button', { name: 'Remove member 2' })).not.toBeInTheDocument();
    await user.click(members().getByRole('button', { name: 'Remove member 3' }));
    const question = within(await screen.findByRole('dialog', { name: 'Remove member 3 of ledger?' }));
    expect(question.getByText(/Its Patroni and postgres stop, the addresses forget it/)).toBeInTheDocument();
    await user.click(question.getByRole('button', { name: 'Remove member 3' }));
    await waitFor(() => expect(changes).toEqual(['remove 3']));
    await waitFor(() => expect(members().getByRole('button', { name: 'Add member' })).toBeDisabled());
  });

  it('shows a switchover scheduled for later, and cancels it on request', async () => {
    const cancelled: string[] = [];
    server.use(
      http.delete('/instances/:id/cluster/switchover', ({ params }) => {
        cancelled.push(String(params.id));
        return HttpResponse.json({ ...ledger, operation: { kind: 'switchover', startedAt: '2025-02-03T05:00:00.000Z' }, version: ledger.version + 1 }, { status: 202 });
      }),
    );
    const scheduledCheck: HealthCheck = { name: 'switchover', level: 'good', message: 'scheduled for 2025-02-03T06:00:00.000Z: member 1 hands the lead to member 2' };
    const { user } = openLedger({ instance: { ...ledger, health: { level: 'good', checks: [...goodChecks, scheduledCheck] } } });
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    await memberRows();
    const operations = within(members().getByRole('group', { name: 'Cluster operations' }));
    expect(operations.getByText('Switchover scheduled for 2025-02-03T06:00:00.000Z: member 1 hands the lead to member 2')).toBeInTheDocument();
    await user.click(operations.getByRole('button', { name: 'Cancel switchover' }));
    await waitFor(() => expect(cancelled).toEqual(['i-1']));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('offers no removal when the last member leads, or when two members are left', async () => {
    openLedger({ members: [pgMember(1, { lagBytes: 0 }), pgMember(2, { role: 'sync_standby' }), pgMember(3, { role: 'leader', lagBytes: null })] });
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    await memberRows();
    expect(members().queryByRole('button', { name: /^Remove member/ })).not.toBeInTheDocument();
    expect(members().getByRole('button', { name: 'Add member' })).toBeEnabled();
  });

  it('switches over to the sync standby unless another member is chosen', async () => {
    const { posts, user } = openLedger();
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    await memberRows();
    await user.click(members().getByRole('button', { name: 'Switch over' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Switch over ledger' }));
    expect(dialog.getByRole('combobox', { name: 'New leader' })).toHaveTextContent('Member 2: sync standby, 0 B behind');
    await user.click(dialog.getByRole('button', { name: 'Switch over' }));

    await waitFor(() => expect(posts).toEqual([{ path: 'cluster/switchover', body: { candidate: 2 } }]));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await within(screen.getByRole('group', { name: 'State' })).findByRole('status')).toHaveTextContent('Switching the leader over…');
    // The cluster waits for the switchover to end.
    expect(members().getByRole('button', { name: 'Switch over' })).toBeDisabled();
    expect(members().getByRole('button', { name: 'Restart member 2' })).toBeDisabled();
  });

  it('shows why a switchover onto a lagging member was refused, and forces it when asked to', async () => {
    const refusal = 'Member 3 is 5000000 bytes behind the leader (the limit is 1048576 bytes): wait for it to catch up, or force the switchover.';
    const { posts, user } = openLedger({ switchoverAnswer: (n) => (n === 0 ? problem(409, 'Conflict', refusal) : undefined) });
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    await memberRows();
    await user.click(members().getByRole('button', { name: 'Switch over' }));
    let dialog = within(await screen.findByRole('dialog', { name: 'Switch over ledger' }));
    await pickOption(user, dialog.getByRole('combobox', { name: 'New leader' }), 'Member 3: replica, 5.0 MB behind');
    await user.click(dialog.getByRole('button', { name: 'Switch over' }));

    // Asked again, with the server's words and the member still chosen.
    dialog = within(await screen.findByRole('dialog', { name: 'Switch over ledger' }));
    expect(await dialog.findByText(refusal)).toBeInTheDocument();
    expect(dialog.getByRole('combobox', { name: 'New leader' })).toHaveTextContent('Member 3');
    await user.click(dialog.getByRole('checkbox', { name: 'Force even if it lags' }));
    await user.click(dialog.getByRole('button', { name: 'Switch over' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(posts).toEqual([
      { path: 'cluster/switchover', body: { candidate: 3 } },
      { path: 'cluster/switchover', body: { candidate: 3, force: true } },
    ]);
  });

  it('offers a failover onto a running replica to admins, naming what may be lost before asking the server', async () => {
    const { posts, user } = openLedger({ members: [...leaderAndStandbys.slice(0, 2), pgMember(3, { state: 'stopped' })] });
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    const rows = await memberRows();
    // Not onto the leader, nor onto a member that is down.
    expect(within(rows[0]).queryByRole('button', { name: /fail over/i })).not.toBeInTheDocument();
    expect(within(rows[2]).queryByRole('button', { name: /fail over/i })).not.toBeInTheDocument();

    await user.click(within(rows[1]).getByRole('button', { name: 'Fail over to member 2' }));
    let dialog = within(await screen.findByRole('dialog', { name: 'Fail ledger over to member 2?' }));
    expect(dialog.getByText(/Commits the old leader had not sent to member 2 are lost\./)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(posts).toEqual([]);

    await user.click(within(rows[1]).getByRole('button', { name: 'Fail over to member 2' }));
    dialog = within(await screen.findByRole('dialog', { name: 'Fail ledger over to member 2?' }));
    await user.click(dialog.getByRole('button', { name: 'Fail over to member 2' }));
    await waitFor(() => expect(posts).toEqual([{ path: 'cluster/failover', body: { candidate: 2 } }]));
  });

  it('offers no failover to a regular user, who may still restart and rebuild members', async () => {
    openLedger({ who: regular });
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    const rows = await memberRows();
    expect(within(rows[1]).getByRole('button', { name: 'Restart member 2' })).toBeEnabled();
    expect(within(rows[1]).getByRole('button', { name: 'Rebuild member 2' })).toBeEnabled();
    expect(members().queryByRole('button', { name: /fail over/i })).not.toBeInTheDocument();
  });

  it('restarts a member at once, and rebuilds a replica only after a yes', async () => {
    const { posts, user } = openLedger();
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    const rows = await memberRows();
    // The leader is what the others are rebuilt from.
    expect(within(rows[0]).queryByRole('button', { name: 'Rebuild member 1' })).not.toBeInTheDocument();

    await user.click(within(rows[2]).getByRole('button', { name: 'Rebuild member 3' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebuild member 3 of ledger?' }));
    expect(dialog.getByText(/Its data is deleted and copied from the leader again\./)).toBeInTheDocument();
    expect(posts).toEqual([]);
    await user.click(dialog.getByRole('button', { name: 'Rebuild member 3' }));
    await waitFor(() => expect(posts).toEqual([{ path: 'members/3/reinitialize', body: {} }]));
  });

  it('restarts a member without asking, and reads the members again when the restart ends', async () => {
    const { posts, store, memberReads, user } = openLedger();
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    const rows = await memberRows();
    await user.click(within(rows[0]).getByRole('button', { name: 'Restart member 1' }));
    await waitFor(() => expect(posts).toEqual([{ path: 'members/1/restart', body: {} }]));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    const before = memberReads();
    act(() => {
      store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-1', kind: 'restartMember', ok: true, error: null, detail: 'member 1: restarted' }, 't'));
    });
    await waitFor(() => expect(memberReads()).toBe(before + 1));
    expect(await members().findByRole('button', { name: 'Restart member 1' })).toBeEnabled();
  });

  it('pauses automatic failover, and offers to resume it once the health says it is paused', async () => {
    const { posts, store, user } = openLedger();
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    await memberRows();
    await user.click(members().getByRole('button', { name: 'Pause failover' }));
    await waitFor(() => expect(posts).toEqual([{ path: 'cluster/pause', body: {} }]));
    await waitFor(() => expect(members().getByRole('button', { name: 'Pause failover' })).toBeDisabled());

    act(() => {
      store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-1', kind: 'pause', ok: true, error: null, detail: null }, 't'));
      store.dispatch(
        hubEvent(
          'InstanceStatusChanged',
          { id: 'i-1', status: 'running', previousStatus: 'running', statusReason: null, health: { level: 'warn', checks: [...goodChecks, pausedCheck] }, version: 5 },
          't',
        ),
      );
    });
    const resume = await members().findByRole('button', { name: 'Resume failover' });
    expect(resume).toBeEnabled();
    await user.click(resume);
    await waitFor(() => expect(posts).toContainEqual({ path: 'cluster/resume', body: {} }));
  });

  it('offers to resume failover when the cluster is opened paused', async () => {
    openLedger({ instance: { ...ledger, health: { level: 'warn', checks: [...goodChecks, pausedCheck] } } });
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    expect(await members().findByRole('button', { name: 'Resume failover' })).toBeInTheDocument();
    expect(members().queryByRole('button', { name: 'Pause failover' })).not.toBeInTheDocument();
  });

  it('offers nothing while the cluster is stopped', async () => {
    openLedger({ instance: { ...ledger, status: 'stopped' }, members: leaderAndStandbys.map((m) => ({ ...m, state: 'stopped' as const })) });
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    await memberRows();
    for (const button of members().getAllByRole('button')) expect(button).toBeDisabled();
  });
});

describe('the failovers and switchovers of a PostgreSQL cluster', () => {
  it('lists each new timeline: when, the new leader, why and how long the read-write address had no writer', async () => {
    const history: ClusterHistoryEntry[] = [
      { timeline: 1, lsn: 50_331_808, reason: 'no recovery target specified', at: '2025-02-03T06:07:08.000Z', newLeader: 'i-1-2', writeOutageSeconds: 19.512 },
      { timeline: 2, lsn: 67_109_024, reason: 'switchover', at: null, newLeader: null, writeOutageSeconds: null },
    ];
    openLedger({ history });
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    const table = within(await screen.findByRole('table', { name: 'Failovers and switchovers' }));
    expect(table.getAllByRole('columnheader').map((header) => header.textContent)).toEqual(['Timeline', 'When', 'New leader', 'Reason', 'No writer for']);
    const rows = table.getAllByRole('row').slice(1);
    expect(within(rows[0]).getAllByRole('cell').map((cell) => cell.textContent)).toEqual([
      '1',
      formatDateTime('2025-02-03T06:07:08.000Z'),
      'i-1-2',
      'no recovery target specified',
      '19.5 s',
    ]);
    expect(within(rows[1]).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['2', '—', '—', 'switchover', '—']);
  });

  it('puts the preset’s computed worst case beside the times measured on the cluster', async () => {
    const at = '2025-02-03T06:07:08.000Z';
    const history: ClusterHistoryEntry[] = [
      { timeline: 1, lsn: 1, reason: 'no recovery target specified', at, newLeader: 'i-1-2', writeOutageSeconds: 19.5 },
      { timeline: 2, lsn: 2, reason: 'no recovery target specified', at, newLeader: 'i-1-1', writeOutageSeconds: 2.1 },
      { timeline: 3, lsn: 3, reason: 'no recovery target specified', at, newLeader: 'i-1-3', writeOutageSeconds: 20.4 },
      { timeline: 4, lsn: 4, reason: 'no recovery target specified', at, newLeader: 'i-1-2', writeOutageSeconds: null },
    ];
    openLedger({ history });
    const section = within(await screen.findByRole('region', { name: 'Failovers and switchovers' }));
    expect(
      await section.findByText(
        'Fast preset: a lost leader is replaced within 22 s (computed worst case). Measured on this cluster over 3 failovers: ' +
          'the read-write address had no writer for 19.5 s (median), 20.4 s at most, plus up to 1 s for HAProxy to notice.',
      ),
    ).toBeInTheDocument();
  });

  it('says so when the cluster never changed its leader', async () => {
    openLedger();
    await screen.findByRole('heading', { level: 1, name: 'ledger' }, firstRender);
    const section = within(await screen.findByRole('region', { name: 'Failovers and switchovers' }));
    expect(await section.findByText('No failover or switchover yet.')).toBeInTheDocument();
    expect(await section.findByText('Fast preset: a lost leader is replaced within 22 s (computed worst case). No failover measured on this cluster yet.')).toBeInTheDocument();
  });
});
