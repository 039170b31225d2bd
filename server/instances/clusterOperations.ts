import type { Instance, InstanceMember } from '../../contracts/instances';
import type { InstanceRow } from '../db/instances';
import path from 'node:path';
import type { InstanceRuntime } from '../engines/engine';
import type { PgEngine } from '../engines/pg';
import {
  cancelScheduledSwitchover,
  clusterMembers,
  memberAction,
  refreshAddresses,
  requestFailover,
  requestSwitchover,
  retireMember,
  scheduledSwitchover,
  setFailoverPaused,
  type ClusterMember,
} from '../engines/pgCluster';
import { compact, defragment } from '../engines/etcdMaintenance';
import { announceMember, healthyCount, quorumOf, removeMember } from '../engines/etcdMembership';
import { healthy } from '../engines/etcdMembers';
import { HttpProblem } from '../http/problems';
import type { InstanceContext } from './instanceContext';
import { probeInto } from './instanceHealth';
import { operate } from './lifecycle';

// Operations on a PostgreSQL cluster (DESIGN §12), each one at a time per instance like the others
// (202, then OperationCompleted), done by Patroni: Warden asks, waits for the members to say it
// happened, and writes each step to the instance's log as it goes.

/** A replica further behind than this is refused as a switchover's candidate unless forced: Patroni's maximum_lag_on_failover. */
export const switchoverLagLimitBytes = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The cluster's row, runtime and members as they are now; 409 for an instance that is no running cluster. */
async function runningCluster(ctx: InstanceContext, id: string): Promise<{ row: InstanceRow; rt: InstanceRuntime; members: InstanceMember[] }> {
  const row = await ctx.requireRow(id);
  const rt = ctx.runtime(row);
  if (!rt.cluster) throw new HttpProblem(409, `${row.name} is a single server, not a cluster.`);
  if (row.status !== 'running') throw new HttpProblem(409, `${row.name} is ${row.status}: start it first.`);
  return { row, rt, members: await ctx.engine(row.type).members(rt) };
}

function memberOf(rt: InstanceRuntime, ordinal: number): ClusterMember {
  const member = clusterMembers(rt).find((m) => m.ordinal === ordinal);
  if (!member) throw new HttpProblem(400, `The cluster has no member ${ordinal}.`, { errors: { candidate: [`Choose a member from 1 to ${clusterMembers(rt).length}.`] } });
  return member;
}

const step = (ctx: InstanceContext, id: string, message: string) => ctx.deps.logs.write({ level: 'information', instanceId: id, handler: 'supervisor', message });

/** Until `done` holds of the members (read every 250 ms), or `withinMs` passes. */
async function untilMembers(ctx: InstanceContext, row: InstanceRow, rt: InstanceRuntime, done: (members: InstanceMember[]) => boolean, withinMs: number): Promise<InstanceMember[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const members = await ctx.engine(row.type).members(rt);
    if (done(members)) return members;
    if (Date.now() > deadline) throw new Error(`The members did not get there within ${withinMs / 1000} seconds: ${members.map((m) => `member ${m.ordinal} ${m.role} ${m.state}`).join(', ')}.`);
    await sleep(250);
  }
}

/** A member's lag, read again every 250 ms for up to `withinMs` until it is no more than `limit`; the last read. */
async function lagWithin(ctx: InstanceContext, rt: InstanceRuntime, ordinal: number, first: number | null, limit: number, withinMs: number): Promise<number | null> {
  let lag = first;
  for (const deadline = Date.now() + withinMs; (lag ?? Infinity) > limit && Date.now() < deadline; ) {
    await sleep(250);
    lag = (await ctx.engine('pg').members(rt)).find((m) => m.ordinal === ordinal)?.lagBytes ?? null;
  }
  return lag;
}

export interface SwitchoverInput {
  /** The member to lead; the healthiest replica when not given. */
  candidate?: number;
  /** When to switch (ISO 8601, in the future); now when not given. */
  scheduledAt?: string;
  /** Switch onto a candidate even when it lags. */
  force?: boolean;
}

/**
 * Hands the lead to another member, with its old leader rejoining as a replica. Refused onto a
 * member that is not running, or (unless forced) one further behind than the lag limit: a
 * switchover onto a lagging replica waits for it, or loses what it missed.
 */
export async function switchover(ctx: InstanceContext, id: string, input: SwitchoverInput): Promise<Instance> {
  const { rt, members } = await runningCluster(ctx, id);
  const leader = members.find((m) => m.role === 'leader' && m.state === 'running');
  if (!leader) throw new HttpProblem(409, 'No member leads at the moment, so there is nothing to switch over: a failover (admins) chooses a new leader.');
  const replicas = members.filter((m) => m.role !== 'leader' && m.state === 'running');
  // The synchronous standby first (it has every commit), then the least behind.
  const healthiest = [...replicas].sort((a, b) => Number(b.role === 'sync_standby') - Number(a.role === 'sync_standby') || (a.lagBytes ?? Infinity) - (b.lagBytes ?? Infinity))[0];
  const chosen = input.candidate === undefined ? healthiest : members.find((m) => m.ordinal === input.candidate);
  if (input.candidate !== undefined) memberOf(rt, input.candidate);
  if (!chosen) throw new HttpProblem(409, 'No replica is running to take the lead.');
  if (chosen.ordinal === leader.ordinal) throw new HttpProblem(400, `Member ${chosen.ordinal} leads already.`, { errors: { candidate: ['Choose a member that does not lead.'] } });
  if (chosen.state !== 'running') throw new HttpProblem(409, `Member ${chosen.ordinal} is ${chosen.state}: it cannot take the lead.`);
  if (!input.force) {
    // Under a burst of writes a replica's replay trails by a moment: it gets a few seconds to come
    // within the limit before the switchover is refused.
    const lag = await lagWithin(ctx, rt, chosen.ordinal, chosen.lagBytes, switchoverLagLimitBytes, 5_000);
    if ((lag ?? Infinity) > switchoverLagLimitBytes) {
      const behind = lag === null ? 'an unknown amount' : `${lag} bytes`;
      throw new HttpProblem(409, `Member ${chosen.ordinal} is ${behind} behind the leader (the limit is ${switchoverLagLimitBytes} bytes): wait for it to catch up, or force the switchover.`);
    }
  }
  let at: string | undefined;
  if (input.scheduledAt !== undefined) {
    const when = new Date(input.scheduledAt);
    if (Number.isNaN(when.getTime()) || when.getTime() <= ctx.deps.clock().getTime()) {
      throw new HttpProblem(400, 'A switchover is scheduled for a time to come.', { errors: { scheduledAt: ['Give a date and time in the future (ISO 8601).'] } });
    }
    at = when.toISOString();
  }
  return operate(ctx, id, 'switchover', {}, async (current, currentRt, engine) => {
    const from = memberOf(currentRt, leader.ordinal);
    const to = memberOf(currentRt, chosen.ordinal);
    await step(ctx, id, `Switchover asked: member ${from.ordinal} → member ${to.ordinal}${at ? ` at ${at}` : ''}.`);
    const said = await requestSwitchover(currentRt, from, to, at);
    if (at) {
      // Its health names the switchover to come from now on, pushed to open pages.
      await probeInto(ctx, current, currentRt, engine);
      return `scheduled for ${at}: ${said}`;
    }
    const started = Date.now();
    await untilMembers(ctx, current, currentRt, (now) => now.some((m) => m.ordinal === to.ordinal && m.role === 'leader' && m.state === 'running'), 60_000);
    await step(ctx, id, `Member ${to.ordinal} leads; member ${from.ordinal} rejoins as a replica.`);
    await untilMembers(ctx, current, currentRt, (now) => now.every((m) => m.state === 'running'), 60_000).catch(() => undefined);
    await probeInto(ctx, current, currentRt, engine);
    return `member ${to.ordinal} leads (was member ${from.ordinal}), in ${((Date.now() - started) / 1000).toFixed(1)} s`;
  });
}

/**
 * Makes `candidate` the leader whatever the state of the others: for when no leader is left and
 * Patroni will not choose one (synchronous mode without a synchronous standby, failover paused).
 * What the old leader had not sent to the candidate is lost: the console says so before asking.
 */
export async function failover(ctx: InstanceContext, id: string, candidate: number): Promise<Instance> {
  const { rt, members } = await runningCluster(ctx, id).catch(async (error: unknown) => {
    // A cluster without a leader is offline, not running: a failover is what it needs.
    const row = await ctx.requireRow(id);
    const runtime = ctx.runtime(row);
    if (!runtime.cluster || row.status === 'stopped' || row.status === 'unInitialized') throw error;
    return { row, rt: runtime, members: await ctx.engine(row.type).members(runtime) };
  });
  memberOf(rt, candidate);
  const chosen = members.find((m) => m.ordinal === candidate)!;
  if (chosen.role === 'leader' && chosen.state === 'running') throw new HttpProblem(400, `Member ${candidate} leads already.`, { errors: { candidate: ['Choose a member that does not lead.'] } });
  if (chosen.state !== 'running') throw new HttpProblem(409, `Member ${candidate} is ${chosen.state}: it cannot take the lead.`);
  return operate(ctx, id, 'failover', {}, async (current, currentRt, engine) => {
    await step(ctx, id, `Failover asked onto member ${candidate}: what it had not received from the old leader is lost.`);
    const said = await requestFailover(currentRt, memberOf(currentRt, candidate));
    await untilMembers(ctx, current, currentRt, (now) => now.some((m) => m.ordinal === candidate && m.role === 'leader' && m.state === 'running'), 60_000);
    await probeInto(ctx, current, currentRt, engine);
    return `member ${candidate} leads: ${said}`;
  });
}

/** Pauses or resumes automatic failover: while paused, Patroni leaves every member as it is (maintenance). */
export async function setPaused(ctx: InstanceContext, id: string, paused: boolean): Promise<Instance> {
  await runningCluster(ctx, id);
  return operate(ctx, id, paused ? 'pause' : 'resume', {}, async (current, rt, engine) => {
    await setFailoverPaused(rt, paused);
    // Every member reads the new setting on its next round.
    await sleep(500);
    await probeInto(ctx, current, rt, engine);
    return paused ? 'automatic failover is paused: a lost leader stays lost until it is resumed' : 'automatic failover is on again';
  });
}

/** Restarts one member's postgres, or rebuilds it from the leader (reinitialize), through its Patroni. */
export async function actOnMember(ctx: InstanceContext, id: string, ordinal: number, action: 'restart' | 'reinitialize'): Promise<Instance> {
  const { rt, members } = await runningCluster(ctx, id);
  memberOf(rt, ordinal);
  const member = members.find((m) => m.ordinal === ordinal)!;
  if (action === 'reinitialize' && member.role === 'leader') {
    throw new HttpProblem(409, `Member ${ordinal} leads: only a replica is rebuilt from the leader. Switch over first.`);
  }
  return operate(ctx, id, action === 'restart' ? 'restartMember' : 'reinitializeMember', {}, async (current, currentRt, engine) => {
    const said = await memberAction(currentRt, memberOf(currentRt, ordinal), action);
    await untilMembers(ctx, current, currentRt, (now) => now.some((m) => m.ordinal === ordinal && m.state === 'running'), 300_000);
    await probeInto(ctx, current, currentRt, engine);
    return `member ${ordinal}: ${said}`;
  });
}

/** An etcd instance's compaction or defragmentation (etcdMaintenance.ts), as an operation. */
export async function etcdUpkeep(ctx: InstanceContext, id: string, what: 'compact' | 'defragment'): Promise<Instance> {
  const row = await ctx.requireRow(id);
  if (row.type !== 'etcd') throw new HttpProblem(409, `${row.name} is a PostgreSQL instance: compaction and defragmentation are etcd's.`);
  if (row.status !== 'running') throw new HttpProblem(409, `${row.name} is ${row.status}: start it first.`);
  return operate(ctx, id, what, {}, async (current, rt, engine) => {
    const said = what === 'compact' ? await compact(rt) : await defragment(rt);
    await probeInto(ctx, current, rt, engine);
    return said;
  });
}

/** Drops the switchover Patroni holds for a time to come; 409 when none is scheduled. */
export async function cancelSwitchover(ctx: InstanceContext, id: string): Promise<Instance> {
  const { rt } = await runningCluster(ctx, id);
  if ((await scheduledSwitchover(rt)) === null) throw new HttpProblem(409, 'No switchover is scheduled.');
  return operate(ctx, id, 'switchover', {}, async (current, currentRt, engine) => {
    await cancelScheduledSwitchover(currentRt);
    await probeInto(ctx, current, currentRt, engine);
    return 'the scheduled switchover was cancelled';
  });
}

/** The most members an etcd instance has. */
export const etcdMemberLimit = 5;
/** The most members a PostgreSQL cluster has, and the fewest (one is a single server, made by a clone). */
export const pgMemberLimit = 5;
const pgMemberFloor = 2;

/** Grows a cluster by one member: an etcd member through etcd's member add, a PostgreSQL replica through Patroni. */
export async function addMember(ctx: InstanceContext, id: string): Promise<Instance> {
  const row = await ctx.requireRow(id);
  return row.type === 'pg' ? addPgMember(ctx, id) : addEtcdMember(ctx, id);
}

/** Shrinks a cluster by its last member (members keep their numbers and ports). */
export async function removeClusterMember(ctx: InstanceContext, id: string, ordinal: number): Promise<Instance> {
  const row = await ctx.requireRow(id);
  return row.type === 'pg' ? removePgMember(ctx, id, ordinal) : removeEtcdMember(ctx, id, ordinal);
}

/** Only the last member goes: the others keep their numbers, ports and folders. */
function onlyTheLast(count: number, ordinal: number) {
  if (ordinal !== count) {
    throw new HttpProblem(400, `Only the last member (${count}) is removed: members keep their numbers and ports.`, { errors: { ordinal: [`Remove member ${count}.`] } });
  }
}

/**
 * Adds a replica to a PostgreSQL cluster: two new ports (postgres and Patroni's REST API), recorded
 * first, then the member's Patroni starts, copies the leader (Patroni's basebackup) and streams from
 * it; HAProxy is reloaded with it, and the archive's configuration lists it. A member that cannot
 * start is taken out again.
 */
async function addPgMember(ctx: InstanceContext, id: string): Promise<Instance> {
  const { row, rt } = await runningCluster(ctx, id);
  const count = clusterMembers(rt).length;
  if (count >= pgMemberLimit) throw new HttpProblem(409, `${row.name} has ${pgMemberLimit} members, the most a PostgreSQL cluster has.`);
  return operate(ctx, id, 'addMember', {}, async (current, currentRt, engine) => {
    const ordinal = count + 1;
    const before = currentRt.members ?? [];
    const added = await ctx.ports.withPorts(2, async ([port, restPort]) => {
      await ctx.change(id, { member_ports: JSON.stringify([...before, { port, peerPort: restPort }]) });
      return { port, peerPort: restPort };
    });
    const grown: InstanceRuntime = { ...currentRt, members: [...before, added] };
    await step(ctx, id, `Member ${ordinal} starts on port ${added.port} (its Patroni on ${added.peerPort}) and copies the leader.`);
    try {
      await engine.start(grown);
    } catch (error) {
      // Nothing half-made stays: the member's process and folder go, and the record its ports.
      await retireMember(clusterMembers(grown)[ordinal - 1]).catch(() => undefined);
      await ctx.change(id, { member_ports: before.length > 0 ? JSON.stringify(before) : null });
      await refreshAddresses(currentRt).catch(() => undefined);
      throw error;
    }
    await probeInto(ctx, current, grown, engine);
    return `member ${ordinal} joined as a replica: ${ordinal} members`;
  });
}

/**
 * Removes the last member of a PostgreSQL cluster: refused while it leads (a switchover first) or
 * when two members would not be left. Its Patroni stops, its folder goes, and HAProxy and the
 * archive's configuration forget it.
 */
async function removePgMember(ctx: InstanceContext, id: string, ordinal: number): Promise<Instance> {
  const { row, members } = await runningCluster(ctx, id);
  const count = members.length;
  if (count <= pgMemberFloor) throw new HttpProblem(409, `${row.name} has ${count} members, the fewest a cluster has: clone it for a single server.`);
  onlyTheLast(count, ordinal);
  if (members[ordinal - 1].role === 'leader') throw new HttpProblem(409, `Member ${ordinal} leads: switch over to another member first.`);
  return operate(ctx, id, 'removeMember', {}, async (current, currentRt, engine) => {
    await retireMember(clusterMembers(currentRt)[ordinal - 1]);
    const left = (currentRt.members ?? []).slice(0, -1);
    await ctx.change(id, { member_ports: left.length > 0 ? JSON.stringify(left) : null });
    const shrunk: InstanceRuntime = { ...currentRt, members: left };
    await refreshAddresses(shrunk);
    (engine as PgEngine).archive?.prepare(shrunk, '');
    await probeInto(ctx, current, shrunk, engine);
    return `member ${ordinal} removed: ${count - 1} members`;
  });
}

/** Member `ordinal`'s folder and pid file (members after the first keep theirs under members/<n>). */
const memberFolder = (rt: InstanceRuntime, ordinal: number) => path.join(rt.dir, 'members', String(ordinal));

async function runningEtcd(ctx: InstanceContext, id: string): Promise<{ row: InstanceRow; rt: InstanceRuntime; count: number }> {
  const row = await ctx.requireRow(id);
  if (row.status !== 'running') throw new HttpProblem(409, `${row.name} is ${row.status}: start it first.`);
  const rt = ctx.runtime(row);
  return { row, rt, count: 1 + (rt.members?.length ?? 0) };
}

/**
 * Grows an etcd instance by one member: new ports, then etcd's member add, then the member's process,
 * which joins the cluster and copies its data. A member that cannot start is taken out again.
 */
async function addEtcdMember(ctx: InstanceContext, id: string): Promise<Instance> {
  const { row, count } = await runningEtcd(ctx, id);
  if (count >= etcdMemberLimit) throw new HttpProblem(409, `${row.name} has ${etcdMemberLimit} members, the most an etcd instance has.`);
  return operate(ctx, id, 'addMember', {}, async (current, rt, engine) => {
    const ordinal = count + 1;
    const before = rt.members ?? [];
    // The ports are the instance's from the moment they are picked, so no creation takes them meanwhile.
    const added = await ctx.ports.withPorts(2, async ([port, peerPort]) => {
      await ctx.change(id, { member_ports: JSON.stringify([...before, { port, peerPort }]) });
      return { port, peerPort };
    });
    const grown: InstanceRuntime = { ...rt, members: [...before, added] };
    await step(ctx, id, `Member ${ordinal} announced to the cluster on peer port ${added.peerPort}; its process starts next.`);
    try {
      await announceMember(rt, added.peerPort);
      await engine.start(grown);
    } catch (error) {
      // Nothing half-made stays: etcd forgets the member, and the record its ports.
      const folder = memberFolder(grown, ordinal);
      await removeMember(grown, added.peerPort, folder, path.join(folder, 'etcd.pid'), ctx.deps.config.engines.etcdBin).catch(() => undefined);
      await ctx.change(id, { member_ports: before.length > 0 ? JSON.stringify(before) : null });
      throw error;
    }
    await probeInto(ctx, current, grown, engine);
    return `member ${ordinal} joined: ${ordinal} members, a quorum of ${quorumOf(ordinal)}`;
  });
}

/**
 * Shrinks an etcd instance by its last member (members keep their numbers and ports): etcd's member
 * remove, then its process ends and its folder goes. Refused when the members left that answer would
 * be fewer than their quorum, for the cluster could not write any more: etcd's own reconfiguration
 * check refuses it too, so it is said before anything is asked.
 */
async function removeEtcdMember(ctx: InstanceContext, id: string, ordinal: number): Promise<Instance> {
  const { row, rt, count } = await runningEtcd(ctx, id);
  if (count === 1) throw new HttpProblem(409, `${row.name} has a single member: delete the instance instead.`);
  onlyTheLast(count, ordinal);
  const last = rt.members![rt.members!.length - 1];
  const answering = (await healthyCount(rt)) - ((await healthy({ port: last.port })) ? 1 : 0);
  if (answering < quorumOf(count - 1)) {
    throw new HttpProblem(
      409,
      `Without member ${ordinal}, ${answering} of ${count - 1} members answer, fewer than a quorum of ${quorumOf(count - 1)}: the cluster could not write. Start the others first.`,
    );
  }
  return operate(ctx, id, 'removeMember', {}, async (current, currentRt, engine) => {
    const folder = memberFolder(currentRt, ordinal);
    await removeMember(currentRt, last.peerPort, folder, path.join(folder, 'etcd.pid'), ctx.deps.config.engines.etcdBin);
    const left = (currentRt.members ?? []).slice(0, -1);
    await ctx.change(id, { member_ports: left.length > 0 ? JSON.stringify(left) : null });
    const shrunk: InstanceRuntime = { ...currentRt, members: left.length > 0 ? left : undefined };
    await probeInto(ctx, current, shrunk, engine);
    return `member ${ordinal} removed: ${count - 1} member${count - 1 === 1 ? '' : 's'}, a quorum of ${quorumOf(count - 1)}`;
  });
}
