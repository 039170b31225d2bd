import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { clusterPresets } from '../../contracts/clusters';
import type { EngineHealth, HealthCheck, InstanceRuntime } from './engine';
import { removeEtcdScopedUser, ensureEtcdScopedUser } from './etcdAuth';
import { writeInstanceFile } from './instanceFiles';
import { instanceUser } from './instanceUsers';
import { answerText, describeMembers, leaderMember, patroniApi, readCluster, readClusterState, roleOf } from './pgClusterApi';
import {
  clusterFiles as files,
  clusterMembers,
  haproxyBin,
  haproxyPid,
  memberFiles,
  memberSocketDir,
  patroniBin,
  patroniPid,
  patroniPython,
  readSecret,
  readText,
  restUser,
  socketPathMax,
  specOf,
  type ClusterMember,
  type ClusterSpec,
  type ClusterTools,
} from './pgClusterLayout';
import { newPassword, writeSecret } from './pgRoles';
import { EngineError, giveToEngineUser, isAlive, isProcessOf, readPidFile, spawnDetached } from './processRunner';

export { clusterMembers, haproxyBin, memberSocketDir, patroniBin, patroniPid, type ClusterMember, type ClusterSpec, type ClusterTools } from './pgClusterLayout';
export {
  cancelScheduledSwitchover,
  clusterHistory,
  describeMembers,
  leaderMember,
  memberAction,
  patroniApi,
  readCluster,
  requestFailover,
  requestSwitchover,
  scheduledSwitchover,
  setFailoverPaused,
  type ScheduledSwitchover,
} from './pgClusterApi';

// A PostgreSQL instance of 2 to 5 members (DESIGN §12): Patroni runs each member, confined as the
// instance's user like a single postmaster, and keeps the leader's lock in the consensus store — a
// Warden etcd instance of the same group, reached as a user of its own that may touch the cluster's
// keys only. HAProxy gives the cluster a read-write and a read-only address by asking each member's
// Patroni REST API who leads. Warden supervises Patroni and HAProxy, never postgres directly, and
// reads the members' state from the REST API. Nothing here replicates, elects or proxies by itself.
// This module writes Patroni's and HAProxy's configuration and runs the processes; where the members'
// folders, ports and files are is pgClusterLayout.ts, and the calls to Patroni's REST API pgClusterApi.ts.

/** The namespace of every cluster's keys in its etcd; the cluster's scope (its instance id) follows. */
const namespace = '/warden-patroni/';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readParameters(file: string): Record<string, string> {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
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

/** "member 2" for a member's Patroni name. */
const ordinalName = (rt: InstanceRuntime, name: string | null) => {
  const m = name === null ? undefined : clusterMembers(rt).find((c) => c.name === name);
  return m ? `member ${m.ordinal}` : 'the healthiest replica';
};

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
  const init = readPidFile(memberFiles(m).sandboxPid);
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
  await untilExecuted(pid, patroniPython);
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
  const leader = await waitFor(rt, stopped, withinMs);
  await untilProxyRoutes(rt, leader);
  return leader;
}

/**
 * Until HAProxy's read-write address sends sessions to the leader alone. A proxy just started counts
 * every member up until its first check, and checks that ran before the leader served marked it down
 * until the next: a client connecting meanwhile would reach a replica (cut off when its check fails)
 * or no member at all. Waits a few check intervals at most, then leaves the checks to settle it.
 */
async function untilProxyRoutes(rt: InstanceRuntime, leader: ClusterMember): Promise<void> {
  const f = files(rt);
  const timing = clusterPresets[specOf(rt).preset];
  const withinMs = timing.checkIntervalMs * (timing.checkFall + 2) + 2_000;
  if (f.haproxySocket.length > socketPathMax) {
    await sleep(timing.checkIntervalMs + 1_000);
    return;
  }
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    const stats = await proxyCommand(f.haproxySocket, 'show stat').catch(() => '');
    if (routesToLeaderAlone(stats, leader.name)) return;
    await sleep(100);
  }
}

/**
 * Whether HAProxy's statistics (`show stat`, CSV) show the read-write address checked through: the
 * leader up after a check, every other member down or not yet checked never counted as up.
 */
export function routesToLeaderAlone(stats: string, leader: string): boolean {
  const [head, ...rows] = stats.split('\n').filter((line) => line.trim() !== '');
  if (!head?.startsWith('#')) return false;
  const columns = head.replace(/^#\s*/, '').split(',');
  const at = (name: string) => columns.indexOf(name);
  const [px, sv, status, check] = [at('pxname'), at('svname'), at('status'), at('check_status')];
  const servers = rows.map((row) => row.split(',')).filter((c) => c[px] === 'read_write' && c[sv] !== 'FRONTEND' && c[sv] !== 'BACKEND');
  const up = (c: string[]) => c[status].startsWith('UP') && c[check] !== 'INI';
  const leaderRow = servers.find((c) => c[sv] === leader);
  return leaderRow !== undefined && up(leaderRow) && servers.every((c) => c[sv] === leader || c[status].startsWith('DOWN'));
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
  const init = readPidFile(memberFiles(m).sandboxPid);
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
