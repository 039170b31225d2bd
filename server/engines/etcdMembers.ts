import path from 'node:path';
import type { InstanceMember } from '../../contracts/instances';
import type { EngineHealth, HealthCheck, InstanceRuntime } from './engine';
import { EngineError } from './processRunner';

// The members of an etcd instance: one, or a cluster of 3 or 5. Each is its own etcd process with its
// own client and peer ports; the first keeps the instance's own port and folders, so an instance made
// before clusters existed is a cluster of one as it was.

/** One etcd process of an instance. */
export interface Member {
  /** 1-based; the first is the instance's port and folders. */
  ordinal: number;
  /** etcd's --name: the instance id for the first member (as ever), `<id>-<ordinal>` for the others. */
  name: string;
  port: number;
  peerPort: number;
  data: string;
  pidFile: string;
}

export const memberUrl = (m: Pick<Member, 'port'>) => `http://127.0.0.1:${m.port}`;
export const memberPeerUrl = (m: Pick<Member, 'peerPort'>) => `http://127.0.0.1:${m.peerPort}`;

/** Every member of the instance, first to last; `first` is where the first member keeps its data and pid. */
export function membersOf(rt: InstanceRuntime, first: { data: string; pidFile: string }): Member[] {
  if (!rt.peerPort) throw new EngineError('An etcd instance needs a peer port.');
  return [
    { ordinal: 1, name: rt.id, port: rt.port, peerPort: rt.peerPort, ...first },
    ...(rt.members ?? []).map((m, i) => {
      const folder = path.join(rt.dir, 'members', String(i + 2));
      return { ordinal: i + 2, name: `${rt.id}-${i + 2}`, port: m.port, peerPort: m.peerPort, data: path.join(folder, 'data'), pidFile: path.join(folder, 'etcd.pid') };
    }),
  ];
}

/** --initial-cluster for the instance's members: every one of them, as at the cluster's birth. */
export const initialCluster = (members: Member[]) => members.map((m) => `${m.name}=${memberPeerUrl(m)}`).join(',');

/** Whether the member on this client port answers /health true (a cluster's do once a leader is elected). */
export async function healthy(m: Pick<Member, 'port'>): Promise<boolean> {
  try {
    const res = await fetch(`${memberUrl(m)}/health`, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { health?: string };
    return body.health === 'true';
  } catch {
    return false;
  }
}

/**
 * A member as it answers now: its raft status over the client port's JSON gateway (maintenance
 * status needs no credentials), or stopped (`running` false) or unreachable.
 */
export async function memberStatus(m: Member, running: boolean): Promise<InstanceMember> {
  const base = { ordinal: m.ordinal, name: `member ${m.ordinal}`, host: '127.0.0.1', port: m.port, lagBytes: null, lagSeconds: null, pendingRestart: false, timeline: null };
  if (!running) return { ...base, role: 'member', state: 'stopped', raftIndex: null, dbSizeBytes: null };
  try {
    const res = await fetch(`${memberUrl(m)}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) });
    if (!res.ok) throw new Error(String(res.status));
    const status = (await res.json()) as { header?: { member_id?: string }; leader?: string; raftIndex?: string; dbSize?: string };
    const leads = status.leader !== undefined && status.leader !== '0' && status.leader === status.header?.member_id;
    return { ...base, role: leads ? 'leader' : 'member', state: 'running', raftIndex: Number(status.raftIndex ?? 0), dbSizeBytes: Number(status.dbSize ?? 0) };
  } catch {
    return { ...base, role: 'member', state: 'unreachable', raftIndex: null, dbSizeBytes: null };
  }
}

/**
 * A cluster's health: each member, then the quorum. Losing fewer than a majority leaves it writable
 * (warn); below a majority, or without a leader, it cannot write (error).
 */
export function clusterHealth(states: InstanceMember[], anyRunning: boolean): EngineHealth {
  const checks: HealthCheck[] = states.map((s) =>
    s.state === 'running'
      ? // No raft index or size here: they change with every write, and a changed check is published (the members list shows them).
        { name: `member ${s.ordinal}`, level: 'good', message: s.role === 'leader' ? 'leader' : 'member' }
      : { name: `member ${s.ordinal}`, level: 'warn', message: s.state === 'stopped' ? 'not running' : 'running, but does not answer' },
  );
  const total = states.length;
  const answering = states.filter((s) => s.state === 'running').length;
  const quorum = Math.floor(total / 2) + 1;
  const quorate = answering >= quorum && states.some((s) => s.role === 'leader');
  const spare = answering - quorum;
  const margin = spare === 0 ? 'one more loss stops writes' : `it stays writable through ${spare} more lost`;
  checks.push({
    name: 'quorum',
    level: quorate ? (answering === total ? 'good' : 'warn') : 'error',
    message: quorate
      ? `${answering} of ${total} members answer (a quorum is ${quorum})${answering < total ? `: writable, ${margin}` : ''}`
      : `${answering} of ${total} members answer, fewer than a quorum of ${quorum}: the cluster cannot write`,
  });
  const level = checks.some((c) => c.level === 'error') ? 'error' : checks.some((c) => c.level === 'warn') ? 'warn' : 'good';
  return { running: anyRunning && quorate, level, checks };
}
