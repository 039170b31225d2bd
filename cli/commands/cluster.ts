import type { Command } from 'commander';
import type { ClusterHistoryEntry } from '../../contracts/clusters';
import type { Instance, InstanceMember } from '../../contracts/instances';
import { contextOf } from '../context';
import { UsageError } from '../errors';
import { renderTable, type Column } from '../output';
import { askLine } from '../prompt';
import { resolveInstance } from '../resolve';
import { addWaitOptions, finishOperation } from './instances';
import { positiveInteger, type WaitOptions } from './shared';

const memberColumns: Column<InstanceMember>[] = [
  { header: 'Member', value: (m) => m.ordinal, align: 'right' },
  { header: 'Role', value: (m) => m.role },
  { header: 'State', value: (m) => m.state },
  { header: 'Address', value: (m) => `${m.host}:${m.port}` },
  { header: 'Timeline', value: (m) => m.timeline, align: 'right' },
  { header: 'Lag bytes', value: (m) => m.lagBytes, align: 'right' },
];

const historyColumns: Column<ClusterHistoryEntry>[] = [
  { header: 'Timeline', value: (h) => h.timeline, align: 'right' },
  { header: 'At', value: (h) => h.at },
  { header: 'Leader', value: (h) => h.newLeader },
  { header: 'Reason', value: (h) => h.reason },
  { header: 'No writer (s)', value: (h) => h.writeOutageSeconds, align: 'right' },
];

/** `warden cluster …`: a PostgreSQL cluster's members and Patroni's operations on them. */
export function registerCluster(program: Command): void {
  const cluster = program
    .command('cluster')
    .description("A cluster's members, history, switchover, failover, maintenance, member rebuilds, growth and shrinking (named by name or id)");

  cluster
    .command('members')
    .argument('<instance>', 'name or id')
    .description('Each member: role (leader, sync_standby, replica), state, address, timeline and lag')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const members = await ctx.api().get<InstanceMember[]>(`/instances/${instance.id}/members`);
      ctx.out.result(members, () => renderTable(members, memberColumns));
    });

  cluster
    .command('history')
    .argument('<instance>', 'name or id')
    .description("The cluster's timelines: each failover or switchover, when, why, and the seconds its read-write address had no writer (HAProxy's log)")
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const history = await ctx.api().get<ClusterHistoryEntry[]>(`/instances/${instance.id}/cluster/history`);
      ctx.out.result(history, () => (history.length ? renderTable(history, historyColumns) : 'No failover or switchover yet.'));
    });

  addWaitOptions(
    cluster
      .command('switchover')
      .argument('<instance>', 'name or id')
      .description('Hand the lead to another member; the old leader rejoins as a replica')
      .option('--to <member>', 'the member (1–5) to lead; the healthiest replica when left out', positiveInteger)
      .option('--at <time>', 'when (ISO 8601, in the future); now when left out')
      .option('--force', 'switch onto a member that lags behind all the same'),
  )
    .addHelpText('after', '\nExamples:\n  $ warden cluster switchover orders\n  $ warden cluster switchover orders --to 2 --at 2026-12-01T02:00:00Z')
    .action(async (ref: string, options: { to?: number; at?: string; force?: boolean } & WaitOptions, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const accepted = await ctx.api().post<Instance>(`/instances/${instance.id}/cluster/switchover`, {
        ...(options.to !== undefined && { candidate: options.to }),
        ...(options.at !== undefined && { scheduledAt: options.at }),
        ...(options.force && { force: true }),
      });
      await finishOperation(ctx, accepted, 'running', `Switching ${instance.name} over`, options);
    });

  addWaitOptions(cluster.command('cancel-switchover').argument('<instance>', 'name or id').description('Cancel the switchover scheduled for later (warden cluster switchover --at)')).action(
    async (ref: string, options: WaitOptions, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const accepted = await ctx.api().delete<Instance>(`/instances/${instance.id}/cluster/switchover`);
      await finishOperation(ctx, accepted, 'running', `Cancelling the switchover of ${instance.name}`, options);
    },
  );

  addWaitOptions(
    cluster
      .command('failover')
      .argument('<instance>', 'name or id')
      .description('Make a member the leader whatever the others say (admins): what the old leader had not sent to it is lost')
      .requiredOption('--to <member>', 'the member (1–5) to lead', positiveInteger)
      .option('-y, --yes', 'do not ask to type the name'),
  ).action(async (ref: string, options: { to: number; yes?: boolean } & WaitOptions, command: Command) => {
    const ctx = contextOf(command);
    const instance = await resolveInstance(ctx.api(), ref);
    if (!options.yes) {
      if (!process.stdin.isTTY) throw new UsageError('A failover needs --yes when not on a terminal: it may lose commits.');
      const typed = await askLine(`What member ${options.to} has not received from the old leader is lost. Type "${instance.name}" to fail over: `);
      if (typed !== instance.name) throw new UsageError('Not confirmed: nothing was changed.');
    }
    const accepted = await ctx.api().post<Instance>(`/instances/${instance.id}/cluster/failover`, { candidate: options.to });
    await finishOperation(ctx, accepted, 'running', `Failing ${instance.name} over to member ${options.to}`, options);
  });

  for (const [name, verb] of [
    ['pause', 'Pause automatic failover of'],
    ['resume', 'Resume automatic failover of'],
  ] as const) {
    addWaitOptions(cluster.command(name).argument('<instance>', 'name or id').description(`${verb} a cluster (maintenance)`)).action(
      async (ref: string, options: WaitOptions, command: Command) => {
        const ctx = contextOf(command);
        const instance = await resolveInstance(ctx.api(), ref);
        const accepted = await ctx.api().post<Instance>(`/instances/${instance.id}/cluster/${name}`);
        await finishOperation(ctx, accepted, 'running', `${verb} ${instance.name}`, options);
      },
    );
  }

  addWaitOptions(cluster.command('add-member').argument('<instance>', 'name or id').description('Grow a cluster by one member (up to 5): an etcd member, or a PostgreSQL replica copied from the leader')).action(
    async (ref: string, options: WaitOptions, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const accepted = await ctx.api().post<Instance>(`/instances/${instance.id}/members`);
      await finishOperation(ctx, accepted, 'running', `Adding a member to ${instance.name}`, options);
    },
  );

  addWaitOptions(
    cluster
      .command('remove-member')
      .argument('<instance>', 'name or id')
      .description('Shrink a cluster by its last member; refused for etcd when the members left could not reach a quorum, for PostgreSQL while it leads or when two would not be left')
      .requiredOption('--member <member>', 'the last member (members keep their numbers)', positiveInteger),
  ).action(async (ref: string, options: { member: number } & WaitOptions, command: Command) => {
    const ctx = contextOf(command);
    const instance = await resolveInstance(ctx.api(), ref);
    const accepted = await ctx.api().delete<Instance>(`/instances/${instance.id}/members/${options.member}`);
    await finishOperation(ctx, accepted, 'running', `Removing member ${options.member} of ${instance.name}`, options);
  });

  for (const [name, action, verb] of [
    ['reinit', 'reinitialize', 'Rebuild a replica of'],
    ['restart-member', 'restart', "Restart one member's postgres of"],
  ] as const) {
    addWaitOptions(
      cluster.command(name).argument('<instance>', 'name or id').description(`${verb} a cluster`).requiredOption('--member <member>', 'the member (1–5)', positiveInteger),
    ).action(async (ref: string, options: { member: number } & WaitOptions, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const accepted = await ctx.api().post<Instance>(`/instances/${instance.id}/members/${options.member}/${action}`);
      await finishOperation(ctx, accepted, 'running', `${verb} ${instance.name} (member ${options.member})`, options);
    });
  }
}
