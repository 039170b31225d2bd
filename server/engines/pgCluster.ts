import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { InstanceMember } from '../../contracts/instances';
import type { ClusterHistoryEntry, ClusterPresetName } from '../../contracts/clusters';
import { clusterPresets } from '../../contracts/clusters';
import type { EngineHealth, HealthCheck, InstanceRuntime } from './engine';
import { removeEtcdScopedUser, ensureEtcdScopedUser } from './etcdAuth';
import { writeInstanceFile } from './instanceFiles';
import { instanceUser } from './instanceUsers';
import { newPassword, writeSecret } from './pgRoles';
import { outageOf, outageSeconds, readWriteOutages } from './proxyOutages';
import { EngineError, giveToEngineUser, isAlive, isProcessOf, spawnDetached } from './processRunner';

// A PostgreSQL instance of 2 to 5 members (DESIGN §12): Patroni runs each member, confined as the
// instance's user like a single postmaster, and keeps the leader's lock in the consensus store — a
// Warden etcd instance of the same group, reached as a user of its own that may touch the cluster's
// keys only. HAProxy gives the cluster a read-write and a read-only address by asking each member's
// Patroni REST API who leads. Warden supervises Patroni and HAProxy, never postgres directly, and
// reads the members' state from the REST API. Nothing here replicates, elects or proxies by itself.

/** What a clustered pg instance keeps beyond a single one's: its consensus store and addresses. */
export interface ClusterSpec {
  /** The etcd instance holding the leader lock, and its client URLs. */
  dcsInstanceId: string;
  dcsEndpoints: string[];
  readWritePort: number;
  readOnlyPort: number;
  synchronous: boolean;
  preset: ClusterPresetName;
}

/** What Patroni needs from the pg engine: where PostgreSQL's binaries are, and the superuser's password. */
export interface ClusterTools {
  pgBinDir: string;
  superuserPassword: string;
  /** A member's own parameters beyond Warden's (WAL archiving, when the server keeps an archive). */
  memberParameters?: (m: ClusterMember) => Record<string, string>;
  /** What a member's processes may write besides the instance folder (the archive's local repository). */
  binds?: string[];
}

/** One member: its folder under the instance's, its postgres port and its Patroni REST port. */
export interface ClusterMember {
  ordinal: number;
  name: string;
  dir: string;
  port: number;
  restPort: number;
}

const python = '/usr/bin/python3';
export const patroniBin = '/usr/bin/patroni';
export const haproxyBin = '/usr/sbin/haproxy';
const restUser = 'warden';
/** The namespace of every cluster's keys in its etcd; the cluster's scope (its instance id) follows. */
const namespace = '/warden-patroni/';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The members of a clustered instance: the first on the instance's own ports, the others on theirs. */
export function clusterMembers(rt: InstanceRuntime): ClusterMember[] {
  const ports = [{ port: rt.port, peerPort: rt.peerPort ?? 0 }, ...(rt.members ?? [])];
  return ports.map((p, i) => ({
    ordinal: i + 1,
    name: `${rt.id}-${i + 1}`,
    dir: path.join(rt.dir, 'members', String(i + 1)),
    port: p.port,
    restPort: p.peerPort,
  }));
}

const files = (rt: InstanceRuntime) => ({
  rest: path.join(rt.dir, 'patroni-api.password'),
  replication: path.join(rt.dir, 'replication.password'),
  rewind: path.join(rt.dir, 'rewind.password'),
  dcs: path.join(rt.dir, 'dcs.password'),
  /** The parameters the cluster was created with: its dynamic configuration's first values. */
  bootstrapParameters: path.join(rt.dir, 'bootstrap-parameters.json'),
  haproxyConf: path.join(rt.dir, 'haproxy.cfg'),
  haproxyPid: path.join(rt.dir, 'haproxy.pid'),
  haproxyLog: path.join(rt.dir, 'haproxy.log'),
  /** HAProxy's runtime socket (the server's alone) and the servers' states it hands a reload. */
  haproxySocket: path.join(rt.dir, 'haproxy.sock'),
  haproxyState: path.join(rt.dir, 'haproxy.state'),
});

/** The longest path a Unix socket may have (sun_path's 108 bytes, with its terminating zero). */
const socketPathMax = 107;

/**
 * A member's socket folder, or null when the socket's path would be too long for one (a deep data
 * folder): the member is then reached over loopback TCP only, as Patroni, HAProxy and Warden reach
 * it anyway; pgBackRest alone needs the socket.
 */
export function memberSocketDir(m: ClusterMember): string | null {
  const dir = path.join(m.dir, 'run');
  return path.join(dir, `.s.PGSQL.${m.port}`).length <= socketPathMax ? dir : null;
}

const memberFiles = (m: ClusterMember) => ({
  config: path.join(m.dir, 'patroni.yml'),
  pid: path.join(m.dir, 'patroni.pid'),
  /** The init of the member's own PID namespace: killing it ends Patroni and its postgres together. */
  sandboxPid: path.join(m.dir, 'sandbox.pid'),
  log: path.join(m.dir, 'patroni.out'),
  data: path.join(m.dir, 'data'),
  run: path.join(m.dir, 'run'),
});

function readSecret(file: string): string {
  return fs.readFileSync(file, 'utf8').trim();
}

function readParameters(file: string): Record<string, string> {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

function readPid(file: string): number | null {
  try {
    const value = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

/** Patroni's process on the host, when it runs. */
export function patroniPid(m: ClusterMember): number | null {
  const pid = readPid(memberFiles(m).pid);
  return pid !== null && isProcessOf(pid, python) ? pid : null;
}

function haproxyPid(rt: InstanceRuntime): number | null {
  const pid = readPid(files(rt).haproxyPid);
  return pid !== null && isProcessOf(pid, haproxyBin) ? pid : null;
}

/** The etcd user the cluster's Patroni logs in as: it may read and write the cluster's keys, nothing else. */
const dcsUser = (rt: InstanceRuntime) => `patroni-${rt.id}`;
const dcsPrefix = (rt: InstanceRuntime) => `${namespace}${rt.id}/`;
/** The etcd instance the cluster's consensus lives in, as its root user reaches it. */
const dcsRuntime = (rt: InstanceRuntime, spec: ClusterSpec): InstanceRuntime => ({
  id: spec.dcsInstanceId,
  dir: path.join(path.dirname(rt.dir), spec.dcsInstanceId),
  port: Number(new URL(spec.dcsEndpoints[0]).port),
});

function specOf(rt: InstanceRuntime): ClusterSpec {
  if (!rt.cluster) throw new EngineError('This instance is not a cluster.');
  return rt.cluster;
}

/** Patroni's configuration of one member, as JSON (which YAML reads). */
function patroniConfig(rt: InstanceRuntime, m: ClusterMember, { pgBinDir, superuserPassword, memberParameters }: ClusterTools): object {
  const spec = specOf(rt);
  const f = files(rt);
  const mf = memberFiles(m);
  const timing = clusterPresets[spec.preset];
  const socketDir = memberSocketDir(m);
  return {
    scope: rt.id,
    namespace,
    name: m.name,
    log: { level: 'INFO', dir: m.dir, file_num: 4, file_size: 25 * 1024 * 1024 },
    restapi: {
      listen: `127.0.0.1:${m.restPort}`,
      connect_address: `127.0.0.1:${m.restPort}`,
      authentication: { username: restUser, password: readSecret(f.rest) },
    },
    etcd3: { hosts: spec.dcsEndpoints.map((u) => new URL(u).host), protocol: 'http', username: dcsUser(rt), password: readSecret(f.dcs) },
    watchdog: { mode: 'off' },
    bootstrap: {
      dcs: {
        ttl: timing.ttl,
        loop_wait: timing.loopWait,
        retry_timeout: timing.retryTimeout,
        maximum_lag_on_failover: 1024 * 1024,
        synchronous_mode: spec.synchronous,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: { ...readParameters(f.bootstrapParameters), wal_level: 'replica', hot_standby: 'on', wal_log_hints: 'on', max_wal_senders: 10, max_replication_slots: 10 },
        },
      },
      initdb: ['data-checksums', { encoding: 'UTF8' }, { locale: 'C.UTF-8' }, { auth: 'scram-sha-256' }],
    },
    postgresql: {
      listen: `127.0.0.1:${m.port}`,
      connect_address: `127.0.0.1:${m.port}`,
      data_dir: mf.data,
      bin_dir: pgBinDir,
      // A lost leader that wrote past the point where the new leader's timeline forked off, and that
      // pg_rewind cannot bring back ("could not find common ancestor" after several failovers), is
      // made a fresh copy of the leader by Patroni instead of starting as a standby that never
      // catches up. What it loses never reached the new leader: commits it acknowledged alone, in
      // asynchronous mode, which the failover had already lost.
      remove_data_directory_on_rewind_failure: true,
      remove_data_directory_on_diverged_timelines: true,
      pgpass: path.join(mf.run, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres', password: superuserPassword },
        replication: { username: 'replicator', password: readSecret(f.replication) },
        rewind: { username: 'rewinder', password: readSecret(f.rewind) },
      },
      parameters: {
        ...memberParameters?.(m),
        unix_socket_directories: socketDir ?? '',
        logging_collector: 'on',
        log_destination: 'jsonlog',
        log_directory: path.join(rt.dir, 'logs'),
        log_filename: `postgresql-${m.ordinal}-%Y%m%d-%H%M%S.log`,
        log_rotation_size: '100MB',
      },
      pg_hba: [
        // The socket is for pgBackRest, which connects as the superuser with its password.
        ...(socketDir ? ['local all postgres scram-sha-256'] : []),
        'host replication replicator 127.0.0.1/32 scram-sha-256',
        // A clone copies the leader with pg_basebackup as the superuser, as it copies a single server.
        'host replication postgres 127.0.0.1/32 scram-sha-256',
        'host all all 127.0.0.1/32 scram-sha-256',
      ],
    },
  };
}

/** HAProxy's configuration: the read-write address goes to the member whose Patroni says /primary, the read-only one to those saying /replica. */
function haproxyConfig(rt: InstanceRuntime): string {
  const spec = specOf(rt);
  const timing = clusterPresets[spec.preset];
  const f = files(rt);
  // Its runtime socket, when its path fits one: a reload then starts from the members' states.
  const keepsState = f.haproxySocket.length <= socketPathMax;
  const servers = clusterMembers(rt).map((m) => `    server ${m.name} 127.0.0.1:${m.port} check port ${m.restPort}`);
  // The read-write address sends every session to the first member up: after a reload, the members
  // already known keep their state (the leader up, the others down), and one just added comes last.
  const listen = (name: string, port: number, check: string) => [
    `listen ${name}`,
    `    bind 127.0.0.1:${port}`,
    `    balance ${name === 'read_only' ? 'roundrobin' : 'first'}`,
    `    option httpchk GET ${check}`,
    // The read-write address's checks are logged as their status changes: outages are measured from them.
    ...(name === 'read_write' ? ['    option log-health-checks'] : []),
    '    http-check expect status 200',
    `    default-server inter ${timing.checkIntervalMs}ms fall ${timing.checkFall} rise 1 on-marked-down shutdown-sessions`,
    ...servers,
  ];
  return [
    '# Managed by Warden.',
    'global',
    '    maxconn 2000',
    // One thread: a host runs one HAProxy per cluster, and on few cores a second thread per proxy
    // only adds hand-offs between threads (measured: no gain in writes/s on two cores).
    '    nbthread 1',
    // State changes only (notices and above, not every session), timed to the microsecond: how long
    // the read-write address went without a writer is read back from them (proxyOutages.ts).
    '    log stdout format iso local0 notice',
    ...(keepsState ? [`    stats socket ${f.haproxySocket} mode 600 level admin`, `    server-state-file ${f.haproxyState}`] : []),
    'defaults',
    '    mode tcp',
    '    log global',
    ...(keepsState ? ['    load-server-state-from-file global'] : []),
    '    timeout connect 2s',
    '    timeout client 30m',
    '    timeout server 30m',
    '    timeout check 1s',
    ...listen('read_write', spec.readWritePort, '/primary'),
    ...listen('read_only', spec.readOnlyPort, '/replica'),
    '',
  ].join('\n');
}

/**
 * The cluster's folders, secrets and configuration, and its user in the consensus store: what a
 * first start needs. Patroni's first member runs initdb itself (with the superuser password given).
 */
export async function initializeCluster(rt: InstanceRuntime, tools: ClusterTools, parameters: Record<string, string>): Promise<void> {
  const spec = specOf(rt);
  const user = instanceUser(rt);
  const f = files(rt);
  writeInstanceFile(f.bootstrapParameters, JSON.stringify(parameters), { within: rt.dir });
  for (const file of [f.rest, f.replication, f.rewind, f.dcs]) if (!fs.existsSync(file)) writeSecret(file, newPassword());
  const dcs = dcsRuntime(rt, spec);
  if (!fs.existsSync(dcs.dir)) throw new EngineError('The consensus store (an etcd instance) of this cluster is gone.');
  await ensureEtcdScopedUser(dcs, dcsUser(rt), readSecret(f.dcs), dcsPrefix(rt));
  for (const m of clusterMembers(rt)) {
    makeMemberFolders(rt, m);
    writeInstanceFile(memberFiles(m).config, JSON.stringify(patroniConfig(rt, m, tools), null, 2), { within: rt.dir, owner: user });
  }
  writeInstanceFile(f.haproxyConf, haproxyConfig(rt), { within: rt.dir, owner: user });
}

/** The passwords of the roles Patroni replicates and rewinds as (made by initializeCluster). */
export function clusterRolePasswords(rt: InstanceRuntime): { replicator: string; rewinder: string } {
  const f = files(rt);
  return { replicator: readSecret(f.replication), rewinder: readSecret(f.rewind) };
}

/** One call to a member's Patroni REST API; unsafe methods carry the API's credentials. */
export async function patroniApi<T>(rt: InstanceRuntime, m: ClusterMember, method: string, route: string, body?: object): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (method !== 'GET') headers.authorization = `Basic ${Buffer.from(`${restUser}:${readSecret(files(rt).rest)}`).toString('base64')}`;
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
async function readClusterState(rt: InstanceRuntime): Promise<ClusterState | null> {
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
const answerText = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body)).trim();

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

/** "member 2" for a member's Patroni name. */
const ordinalName = (rt: InstanceRuntime, name: string | null) => {
  const m = name === null ? undefined : clusterMembers(rt).find((c) => c.name === name);
  return m ? `member ${m.ordinal}` : 'the healthiest replica';
};

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
      const outages = readWriteOutages(readText(files(rt).haproxyLog) ?? '');
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

const roleOf = (role: string): InstanceMember['role'] => (role === 'leader' || role === 'standby_leader' ? 'leader' : role === 'sync_standby' ? 'sync_standby' : 'replica');

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

/** A running member's Patroni pid, when any runs: the cluster runs while one does. */
export function clusterPid(rt: InstanceRuntime): number | null {
  for (const m of clusterMembers(rt)) {
    const pid = patroniPid(m);
    if (pid !== null) return pid;
  }
  return null;
}

export const stoppedClusterMembers = (rt: InstanceRuntime) => clusterMembers(rt).filter((m) => patroniPid(m) === null).map((m) => m.ordinal);

/** The parent of a confined command: its PID namespace's init. */
function parentOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Ends what is left of a member whose Patroni is gone: its postgres, in the same namespace, goes with the namespace's init. */
function endMemberLeftovers(m: ClusterMember) {
  const init = readPid(memberFiles(m).sandboxPid);
  // Only while the pid is still a bwrap: a pid file may outlive its process, and the pid be taken by another.
  if (init !== null && isProcessOf(init, '/usr/bin/bwrap')) {
    try {
      process.kill(init, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Until the confined command runs `binary`: its pid is known while it is still prlimit or setpriv,
 * which exec into it a moment later, and a pid that runs something else reads as a dead process.
 */
async function untilExecuted(pid: number, binary: string, withinMs = 5_000) {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline && isAlive(pid) && !isProcessOf(pid, binary); ) await sleep(10);
}

async function spawnMember(rt: InstanceRuntime, m: ClusterMember, binds: string[]) {
  const mf = memberFiles(m);
  endMemberLeftovers(m);
  // A postmaster.pid left by a killed member names a pid of its old namespace: Patroni checks it against its own.
  if (!fs.existsSync(mf.log)) writeInstanceFile(mf.log, '', { within: rt.dir, owner: instanceUser(rt) });
  const pid = await spawnDetached(instanceUser(rt), patroniBin, [mf.config], mf.log, { binds });
  await untilExecuted(pid, python);
  writeInstanceFile(mf.pid, `${pid}\n`, { within: rt.dir });
  const init = parentOf(pid);
  if (init !== null) writeInstanceFile(mf.sandboxPid, `${init}\n`, { within: rt.dir });
}

/**
 * HAProxy with today's members: started when it is not running; when it runs and its configuration
 * changed (a member added or removed), reloaded in place. It runs as master and worker (-W), so the
 * reload is a signal to the master, which starts a worker on the new configuration and lets the old
 * one finish the sessions it carries: clients of the addresses are not cut off.
 */
async function runProxy(rt: InstanceRuntime) {
  const f = files(rt);
  const config = haproxyConfig(rt);
  const changed = readText(f.haproxyConf) !== config;
  if (changed) writeInstanceFile(f.haproxyConf, config, { within: rt.dir, owner: instanceUser(rt) });
  const running = haproxyPid(rt);
  if (running !== null) {
    if (!changed) return;
    // Each member's state as the running proxy has it, for the new worker to start from.
    const state = await proxyCommand(f.haproxySocket, 'show servers state').catch(() => null);
    if (state !== null) writeInstanceFile(f.haproxyState, state, { within: rt.dir, owner: instanceUser(rt) });
    process.kill(running, 'SIGUSR2');
    return;
  }
  if (!fs.existsSync(f.haproxyLog)) writeInstanceFile(f.haproxyLog, '', { within: rt.dir, owner: instanceUser(rt) });
  // The states kept for a reload are an earlier run's: a fresh start learns the members anew.
  fs.rmSync(f.haproxyState, { force: true });
  const pid = await spawnDetached(instanceUser(rt), haproxyBin, ['-W', '-f', f.haproxyConf, '-db'], f.haproxyLog);
  await untilExecuted(pid, haproxyBin);
  writeInstanceFile(f.haproxyPid, `${pid}\n`, { within: rt.dir });
}

/** One command on HAProxy's runtime socket; answers what it wrote back. */
function proxyCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // HAProxy answers one command and closes the connection.
    const client = net.createConnection(socket, () => client.write(`${command}\n`));
    client.setTimeout(2_000, () => client.destroy(new Error('HAProxy did not answer on its socket')));
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    client.on('error', reject);
    client.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** A member's folders, made for the first start of the cluster or of a member added later. */
function makeMemberFolders(rt: InstanceRuntime, m: ClusterMember) {
  const user = instanceUser(rt);
  for (const dir of [path.dirname(m.dir), m.dir, memberFiles(m).run]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    giveToEngineUser(user, dir);
  }
}

/**
 * Starts every member whose Patroni is not running, and the addresses' proxy, then waits until a
 * leader serves and each member started answers as running (a new replica copies the leader first).
 */
export async function startCluster(rt: InstanceRuntime, tools: ClusterTools, withinMs = 120_000): Promise<ClusterMember> {
  const members = clusterMembers(rt);
  const stopped = members.filter((m) => patroniPid(m) === null);
  // The configuration is written afresh, so a member started again has today's settings and secrets.
  const user = instanceUser(rt);
  for (const m of stopped) {
    // A member added since the last start has no folder yet: Patroni makes it a replica of the leader.
    makeMemberFolders(rt, m);
    writeInstanceFile(memberFiles(m).config, JSON.stringify(patroniConfig(rt, m, tools), null, 2), { within: rt.dir, owner: user });
  }
  // The first member alone first when the others have no data: it runs initdb, or takes over the
  // folder a restore gave it, before any other member could try to start a cluster of its own.
  const fresh = members.slice(1).every((m) => !fs.existsSync(path.join(memberFiles(m).data, 'PG_VERSION'))) && stopped.includes(members[0]);
  const binds = tools.binds ?? [];
  if (fresh) {
    await spawnMember(rt, members[0], binds);
    await waitFor(rt, [members[0]], withinMs);
    for (const m of stopped.slice(1)) await spawnMember(rt, m, binds);
  } else {
    for (const m of stopped) await spawnMember(rt, m, binds);
  }
  await runProxy(rt);
  return waitFor(rt, stopped, withinMs);
}

/** Every member's configuration written afresh, and re-read by the Patroni of each member that runs (a reload of its postgres). */
export async function reconfigureMembers(rt: InstanceRuntime, tools: ClusterTools): Promise<void> {
  const user = instanceUser(rt);
  for (const m of clusterMembers(rt)) {
    writeInstanceFile(memberFiles(m).config, JSON.stringify(patroniConfig(rt, m, tools), null, 2), { within: rt.dir, owner: user });
    if (patroniPid(m) === null) continue;
    const answer = await patroniApi(rt, m, 'POST', '/reload');
    if (answer.status !== 200 && answer.status !== 202) throw new EngineError(`Patroni of member ${m.ordinal} refused to reload: ${answerText(answer.body)}`);
  }
}

/** Until a leader serves and the given members run; answers the leader. */
async function waitFor(rt: InstanceRuntime, members: ClusterMember[], withinMs: number): Promise<ClusterMember> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const listed = (await readCluster(rt)) ?? [];
    const running = (name: string) => listed.some((p) => p.name === name && (p.state === 'running' || p.state === 'streaming'));
    const leader = listed.find((p) => roleOf(p.role) === 'leader' && running(p.name));
    if (leader && members.every((m) => running(m.name))) return clusterMembers(rt).find((m) => m.name === leader.name)!;
    const dead = members.find((m) => patroniPid(m) === null);
    if (dead || Date.now() > deadline) {
      const patroniLog = path.join((dead ?? members[0]).dir, 'patroni.log');
      const why = problemLines(patroniLog) || tail(memberFiles(dead ?? members[0]).log) || tail(patroniLog);
      throw new EngineError(`Member ${(dead ?? members[0]).ordinal} of the cluster did not ${dead ? 'keep running' : 'become ready in time'}.${why ? `\n${why}` : ''}`);
    }
    await sleep(250);
  }
}

/** What Patroni logged as going wrong (its errors, and initdb's or postgres's words it passed on), last few. */
function problemLines(file: string): string {
  try {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    return lines.filter((line) => /\b(ERROR|FATAL|CRITICAL)\b|initdb:|error:/.test(line)).slice(-4).join('\n');
  } catch {
    return '';
  }
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-4).join('\n');
  } catch {
    return '';
  }
}

/** Stops the proxy, then every member's Patroni, which shuts its postgres down first (the leader last, so no failover runs meanwhile). */
export async function stopCluster(rt: InstanceRuntime): Promise<void> {
  const proxy = haproxyPid(rt);
  if (proxy !== null) process.kill(proxy, 'SIGTERM');
  const leader = await leaderMember(rt).catch(() => null);
  const members = clusterMembers(rt);
  const order = [...members.filter((m) => m.name !== leader?.name), ...members.filter((m) => m.name === leader?.name)];
  for (const m of order) {
    const pid = patroniPid(m);
    if (pid === null) {
      endMemberLeftovers(m);
      continue;
    }
    process.kill(pid, 'SIGTERM');
    for (let waited = 0; waited < 60_000 && isAlive(pid); waited += 100) await sleep(100);
    if (isAlive(pid)) throw new EngineError(`Member ${m.ordinal} of the cluster did not shut down within 60 seconds.`);
    endMemberLeftovers(m);
  }
  for (const m of members) fs.rmSync(memberFiles(m).pid, { force: true });
  fs.rmSync(files(rt).haproxyPid, { force: true });
}

/**
 * Ends member `m` for good, as the last step of taking it out of the cluster: its Patroni stops
 * (shutting its postgres down, and taking its key out of the consensus store, so the leader drops
 * its replication slot), then its folder goes.
 */
export async function retireMember(m: ClusterMember): Promise<void> {
  const pid = patroniPid(m);
  if (pid !== null) {
    process.kill(pid, 'SIGTERM');
    for (let waited = 0; waited < 60_000 && isAlive(pid); waited += 100) await sleep(100);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  endMemberLeftovers(m);
  fs.rmSync(m.dir, { recursive: true, force: true });
}

/** The addresses follow the members: HAProxy's configuration is rewritten, and reloaded without cutting sessions. */
export const refreshAddresses = (rt: InstanceRuntime) => runProxy(rt);

/** Health: members running, a leader, replicas' lag, the read-write address. */
export async function probeCluster(rt: InstanceRuntime): Promise<EngineHealth> {
  const checks: HealthCheck[] = [];
  const members = await describeMembers(rt);
  const running = members.filter((m) => m.state === 'running');
  const leader = members.find((m) => m.role === 'leader' && m.state === 'running');
  checks.push({
    name: 'members',
    level: running.length === members.length ? 'good' : running.length === 0 ? 'error' : 'warn',
    message: `${running.length} of ${members.length} members running`,
  });
  checks.push(
    leader
      ? { name: 'leader', level: 'good', message: `member ${leader.ordinal} leads${leader.timeline ? ` on timeline ${leader.timeline}` : ''}` }
      : { name: 'leader', level: 'error', message: 'no member leads' },
  );
  const lagging = members.filter((m) => m.role !== 'leader' && m.state === 'running' && (m.lagBytes ?? 0) > 16 * 1024 * 1024);
  if (lagging.length > 0) checks.push({ name: 'replication', level: 'warn', message: `lagging: member ${lagging.map((m) => m.ordinal).join(', ')}` });
  const state = await readClusterState(rt);
  if (state?.paused) checks.push({ name: 'failover', level: 'warn', message: 'automatic failover is paused (maintenance)' });
  if (state?.scheduled) {
    const { at, from, to } = state.scheduled;
    checks.push({ name: 'switchover', level: 'good', message: `scheduled for ${at}: ${ordinalName(rt, from)} hands the lead to ${ordinalName(rt, to)}` });
  }
  if (haproxyPid(rt) === null) checks.push({ name: 'addresses', level: 'error', message: 'the read-write and read-only addresses are down (HAProxy is not running)' });
  const level = checks.some((c) => c.level === 'error') ? 'error' : checks.some((c) => c.level === 'warn') ? 'warn' : 'good';
  return { running: leader !== undefined, level, checks };
}

/** Removes the cluster's user from the consensus store (its keys go with it). */
export async function forgetClusterInDcs(rt: InstanceRuntime): Promise<void> {
  if (!rt.cluster) return;
  const dcs = dcsRuntime(rt, rt.cluster);
  if (fs.existsSync(dcs.dir)) await removeEtcdScopedUser(dcs, dcsUser(rt), dcsPrefix(rt)).catch(() => undefined);
}

/** The pids a process has started, read from /proc. */
function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * A member's postmaster on the host: Patroni starts it in the member's namespace, where it is
 * adopted by the namespace's init; it is the process of that sandbox running `postgres` whose
 * parent is not a postgres too.
 */
export function memberPostmasterPid(rt: InstanceRuntime, ordinal: number, postgres: string): number | null {
  // Found by its folder alone: a member's runtime (memberRuntime) knows its own port, not the others'.
  const dir = path.join(rt.dir, 'members', String(ordinal));
  if (!fs.existsSync(dir)) return null;
  const m: ClusterMember = { ordinal, name: `${rt.id}-${ordinal}`, dir, port: 0, restPort: 0 };
  // Confined, the member's namespace init; unconfined (a server not run as root), its Patroni.
  const init = readPid(memberFiles(m).sandboxPid);
  const root = init !== null && isProcessOf(init, '/usr/bin/bwrap') ? init : patroniPid(m);
  if (root === null) return null;
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const child of childrenOf(pid)) {
      if (isProcessOf(child, postgres)) return child;
      queue.push(child);
    }
  }
  return null;
}

/** The runtime pg's own calls (parameters, dumps, roles) use for one member: its folder and port. */
export function memberRuntime(rt: InstanceRuntime, m: ClusterMember): InstanceRuntime {
  return { id: rt.id, dir: rt.dir, port: m.port, member: m.ordinal, ...(rt.scratch && { scratch: true }) };
}
