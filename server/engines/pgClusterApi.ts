import type { ClusterHistoryEntry } from '../../contracts/clusters';
import { clusterPresets } from '../../contracts/clusters';
import type { InstanceMember } from '../../contracts/instances';
import type { InstanceRuntime } from './engine';
import { clusterFiles, clusterMembers, patroniPid, readSecret, readText, restUser, specOf, type ClusterMember } from './pgClusterLayout';
import { EngineError } from './processRunner';
import { outageOf, outageSeconds, readWriteOutages } from './proxyOutages';

// A PostgreSQL cluster as its members' Patroni REST APIs tell it (pgCluster.ts): who leads, the
// members' states, the history of timelines, and the operations Patroni carries out on request
// (switchover, failover, pause, a member's restart or rebuild).

/** One call to a member's Patroni REST API; unsafe methods carry the API's credentials. */
export async function patroniApi<T>(rt: InstanceRuntime, m: ClusterMember, method: string, route: string, body?: object): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (method !== 'GET') headers.authorization = `Basic ${Buffer.from(`${restUser}:${readSecret(clusterFiles(rt).rest)}`).toString('base64')}`;
  const res = await fetch(`http://127.0.0.1:${m.restPort}${route}`, {
    method,
    headers,
    ...(body && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Some answers are plain words ("restarted successfully").
  }
  return { status: res.status, body: parsed as T };
}

/** What Patroni's /cluster says of one member. */
interface PatroniMember {
  name: string;
  role: string;
  state: string;
  host: string;
  port: number;
  timeline?: number;
  lag?: number | string;
  pending_restart?: boolean;
}

/** A switchover Patroni holds for later: when, and from and to which member (by Patroni's names). */
export interface ScheduledSwitchover {
  at: string;
  from: string | null;
  to: string | null;
}

interface ClusterState {
  members: PatroniMember[];
  paused: boolean;
  scheduled: ScheduledSwitchover | null;
}

/** The cluster as the first member whose Patroni answers sees it: its members, whether failover is paused, a switchover to come. */
export async function readClusterState(rt: InstanceRuntime): Promise<ClusterState | null> {
  for (const m of clusterMembers(rt)) {
    if (patroniPid(m) === null) continue;
    try {
      const { status, body } = await patroniApi<{ members?: PatroniMember[]; pause?: boolean; scheduled_switchover?: { at?: string; from?: string; to?: string } }>(rt, m, 'GET', '/cluster');
      const planned = body.scheduled_switchover;
      const scheduled = planned?.at ? { at: new Date(planned.at).toISOString(), from: planned.from ?? null, to: planned.to ?? null } : null;
      if (status === 200 && body.members) return { members: body.members, paused: body.pause === true, scheduled };
    } catch {
      // The next member may answer.
    }
  }
  return null;
}

/** The members as the first member whose Patroni answers sees them; null when none does. */
export async function readCluster(rt: InstanceRuntime): Promise<PatroniMember[] | null> {
  return (await readClusterState(rt))?.members ?? null;
}

/** What Patroni answered, as one line for a message. */
export const answerText = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body)).trim();

/** Asks Patroni to hand the lead from `leader` to `candidate`, now or at `scheduledAt` (ISO 8601); answers Patroni's words. */
export async function requestSwitchover(rt: InstanceRuntime, leader: ClusterMember, candidate: ClusterMember, scheduledAt?: string): Promise<string> {
  const answer = await patroniApi(rt, leader, 'POST', '/switchover', { leader: leader.name, candidate: candidate.name, ...(scheduledAt && { scheduled_at: scheduledAt }) });
  if (answer.status !== 200 && answer.status !== 202) throw new EngineError(`Patroni refused the switchover: ${answerText(answer.body)}`);
  return answerText(answer.body);
}

/** A failover onto `candidate` while no healthy leader is left: asked of the candidate's own Patroni. */
export async function requestFailover(rt: InstanceRuntime, candidate: ClusterMember): Promise<string> {
  const answer = await patroniApi(rt, candidate, 'POST', '/failover', { candidate: candidate.name });
  if (answer.status !== 200 && answer.status !== 202) throw new EngineError(`Patroni refused the failover: ${answerText(answer.body)}`);
  return answerText(answer.body);
}

/** The switchover Patroni holds for later, if any. */
export async function scheduledSwitchover(rt: InstanceRuntime): Promise<ScheduledSwitchover | null> {
  return (await readClusterState(rt))?.scheduled ?? null;
}

/** Drops the switchover Patroni holds for later. */
export async function cancelScheduledSwitchover(rt: InstanceRuntime): Promise<void> {
  const member = clusterMembers(rt).find((m) => patroniPid(m) !== null);
  if (!member) throw new EngineError('No member of the cluster runs.');
  const answer = await patroniApi(rt, member, 'DELETE', '/switchover');
  if (answer.status !== 200) throw new EngineError(`Patroni did not cancel the switchover: ${answerText(answer.body)}`);
}

/** Pauses or resumes automatic failover for every member (Patroni's maintenance mode). */
export async function setFailoverPaused(rt: InstanceRuntime, paused: boolean): Promise<void> {
  const member = clusterMembers(rt).find((m) => patroniPid(m) !== null);
  if (!member) throw new EngineError('No member of the cluster runs.');
  const answer = await patroniApi(rt, member, 'PATCH', '/config', { pause: paused });
  if (answer.status !== 200) throw new EngineError(`Patroni refused to ${paused ? 'pause' : 'resume'}: ${answerText(answer.body)}`);
}

/** Restarts one member's postgres through its Patroni, or makes it a fresh copy of the leader (reinitialize). */
export async function memberAction(rt: InstanceRuntime, m: ClusterMember, action: 'restart' | 'reinitialize'): Promise<string> {
  if (patroniPid(m) === null) throw new EngineError(`Member ${m.ordinal} is not running.`);
  const answer = await patroniApi(rt, m, 'POST', `/${action}`, action === 'reinitialize' ? { force: true } : {});
  if (answer.status !== 200 && answer.status !== 202) throw new EngineError(`Patroni refused to ${action} member ${m.ordinal}: ${answerText(answer.body)}`);
  return answerText(answer.body);
}

/** Patroni's history of the cluster's timelines: when each began, why, and how long HAProxy's read-write address had no writer then. */
export async function clusterHistory(rt: InstanceRuntime): Promise<ClusterHistoryEntry[]> {
  for (const m of clusterMembers(rt)) {
    if (patroniPid(m) === null) continue;
    try {
      const { status, body } = await patroniApi<unknown[][]>(rt, m, 'GET', '/history');
      if (status !== 200 || !Array.isArray(body)) continue;
      const outages = readWriteOutages(readText(clusterFiles(rt).haproxyLog) ?? '');
      const slackMs = (clusterPresets[specOf(rt).preset].loopWait + 5) * 1000;
      return body.map((entry) => {
        const at = typeof entry[3] === 'string' ? new Date(entry[3]) : null;
        const outage = at && !Number.isNaN(at.getTime()) ? outageOf(outages, at, slackMs) : null;
        return {
          timeline: Number(entry[0]),
          lsn: Number(entry[1]),
          reason: String(entry[2] ?? ''),
          at: at ? at.toISOString() : null,
          newLeader: typeof entry[4] === 'string' ? entry[4] : null,
          writeOutageSeconds: outage ? outageSeconds(outage) : null,
        };
      });
    } catch {
      // The next member may answer.
    }
  }
  return [];
}

export const roleOf = (role: string): InstanceMember['role'] => (role === 'leader' || role === 'standby_leader' ? 'leader' : role === 'sync_standby' ? 'sync_standby' : 'replica');

/** Each member with its role, state, lag and timeline as Patroni reports them; a member Patroni does not list is stopped. */
export async function describeMembers(rt: InstanceRuntime): Promise<InstanceMember[]> {
  const listed = (await readCluster(rt)) ?? [];
  return clusterMembers(rt).map((m) => {
    const seen = listed.find((p) => p.name === m.name);
    const running = seen !== undefined && (seen.state === 'running' || seen.state === 'streaming');
    return {
      ordinal: m.ordinal,
      name: m.name,
      role: seen ? roleOf(seen.role) : 'replica',
      state: running ? 'running' : patroniPid(m) === null ? 'stopped' : 'unreachable',
      host: '127.0.0.1',
      port: m.port,
      lagBytes: seen && typeof seen.lag === 'number' ? seen.lag : seen && roleOf(seen.role) === 'leader' ? 0 : null,
      lagSeconds: null,
      pendingRestart: seen?.pending_restart === true,
      timeline: seen?.timeline ?? null,
      raftIndex: null,
      dbSizeBytes: null,
    };
  });
}

/** The member that leads now, or null while none does. */
export async function leaderMember(rt: InstanceRuntime): Promise<ClusterMember | null> {
  const listed = await readCluster(rt);
  const leader = listed?.find((p) => roleOf(p.role) === 'leader' && (p.state === 'running' || p.state === 'streaming'));
  return leader ? (clusterMembers(rt).find((m) => m.name === leader.name) ?? null) : null;
}
