import type { Health, InstanceStatus, InstanceStatusChangedPayload } from '../../contracts/instances';
import { findInstanceRow, type InstanceRow } from '../db/instances';
import type { Engine, EngineHealth, InstanceRuntime } from '../engines/engine';
import { crashLoopReason } from './crashLoop';
import { clusterHistory } from '../engines/pgCluster';
import type { InstanceContext } from './instanceContext';

export const stoppedHealth: Health = { level: 'good', checks: [{ name: 'process', level: 'good', message: 'stopped on request' }] };

/** Why a probe says the instance is not serving, in one line. */
function failingChecks(health: EngineHealth): string {
  return health.checks.filter((c) => c.level === 'error').map((c) => `${c.name}: ${c.message}`).join('; ') || 'not answering';
}

/** Probes one instance and records its status and health; answers the new status. */
export async function refresh(ctx: InstanceContext, id: string): Promise<InstanceStatus | undefined> {
  const row = await findInstanceRow(ctx.deps.db, id);
  if (!row || row.status === 'unInitialized') return row?.status;
  return probeInto(ctx, row, ctx.runtime(row), ctx.engine(row.type));
}

/** Probes the instance and records what it finds; an instance that should run and does not is offline. */
export async function probeInto(ctx: InstanceContext, row: InstanceRow, rt: InstanceRuntime, engine: Engine): Promise<InstanceStatus> {
  const current = (await findInstanceRow(ctx.deps.db, row.id)) ?? row;
  const health = await engine.probe(rt);
  let status: InstanceStatus;
  let reason: string | null = null;
  let shown: Health = { level: health.level, checks: health.checks };
  if (health.running) status = 'running';
  else if (current.desired_state === 'running') {
    status = 'offline';
    // A crash loop stays named as one until someone starts the instance.
    reason = ctx.crashes.get(row.id)?.gaveUp && engine.pid(rt) === null ? crashLoopReason : failingChecks(health);
  } else if (engine.pid(rt) !== null) status = 'running';
  else {
    status = 'stopped';
    shown = stoppedHealth;
  }
  await settle(ctx, row.id, status, reason, shown);
  return status;
}

/**
 * Records status and health; publishes InstanceStatusChanged only when the status, the reason, the
 * health level or the checks (as a set of name, level and message) changed, so a quiet instance is quiet.
 */
export async function settle(ctx: InstanceContext, id: string, status: InstanceStatus, reason: string | null, health: Health) {
  const row = await findInstanceRow(ctx.deps.db, id);
  if (!row) return;
  const checks = JSON.stringify(health.checks);
  if (row.status === status && row.status_reason === reason && row.health_level === health.level && sameChecks(row.health_checks, health.checks)) return;
  await ctx.change(id, { status, status_reason: reason, health_level: health.level, health_checks: checks });
  const version = (await findInstanceRow(ctx.deps.db, id))?.version ?? row.version + 1;
  const payload: InstanceStatusChangedPayload = { id, status, previousStatus: row.status, statusReason: reason, health, version };
  ctx.deps.bus.publish({ event: 'InstanceStatusChanged', payload, audience: await ctx.audience(row) });
  const leaderBefore = storedChecks(row.health_checks).find((c) => c.name === 'leader');
  const leaderNow = health.checks.find((c) => c.name === 'leader');
  if (leaderBefore && leaderNow && leaderBefore.message !== leaderNow.message) {
    // A cluster's leader changed (a failover, a switchover, a leader lost): the instance's log says so,
    // with Patroni's reason for the newest timeline when a new leader took over.
    const rt = ctx.runtime(row);
    const why = leaderNow.level === 'good' && rt.cluster ? (await clusterHistory(rt).catch(() => [])).at(-1)?.reason : undefined;
    await ctx.deps.logs.write({
      level: leaderNow.level === 'good' ? 'information' : 'warning',
      instanceId: id,
      handler: 'supervisor',
      message: `Leader: ${leaderBefore.message} → ${leaderNow.message}${why ? ` (Patroni: ${why})` : ''}`,
    });
  }
  if (row.status !== status) {
    await ctx.deps.logs.write({
      level: status === 'offline' ? 'warning' : 'information',
      instanceId: id,
      handler: 'supervisor',
      message: `Status ${row.status} → ${status}${reason ? `: ${reason}` : ''}`,
    });
  }
}

function storedChecks(stored: string): Health['checks'] {
  try {
    return JSON.parse(stored) as Health['checks'];
  } catch {
    return [];
  }
}

/** Whether the stored checks (JSON) hold the same name, level and message triples as `checks`, in any order. */
function sameChecks(stored: string, checks: Health['checks']): boolean {
  const key = (list: Health['checks']) => list.map((c) => JSON.stringify([c.name, c.level, c.message])).sort().join('\n');
  try {
    return key(JSON.parse(stored) as Health['checks']) === key(checks);
  } catch {
    return false;
  }
}
