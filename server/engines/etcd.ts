import fs from 'node:fs';
import path from 'node:path';
import type { EngineBinaries } from './detect';
import type { ApplyResult, ConfigParameter, Engine, EngineHealth, HealthCheck, InstanceRuntime } from './engine';
import { ensureEtcdAuth, etcdRootEnv, giveCloneRoot, turnAuthOffForFirstStart } from './etcdAuth';
import { writeInstanceFile } from './instanceFiles';
import { parameterPolicy } from './parameterPolicy';
import { checkValue, thisHost } from './parameterValues';
import { EngineError, giveToEngineUser, isAlive, isProcessOf, readPidFile, run, spawnDetached } from './processRunner';
import { instanceUser, migrateInstanceFolder, removeInstanceUser, type EngineUser } from './instanceUsers';
import { instanceLimits } from './confinement';
import { maintenanceChecks } from './etcdMaintenance';
import { clusterHealth, healthy, initialCluster, memberPeerUrl, memberStatus, memberUrl, membersOf as membersAt, type Member } from './etcdMembers';

/** The etcd flags an operator may set; every change needs a restart (etcd has no live reload). */
export const etcdFlags: Omit<ConfigParameter, 'value' | 'apply'>[] = [
  { name: 'snapshot-count', default: '100000', type: 'integer', unit: null, min: 1, max: 10_000_000, enumValues: null, description: 'Committed transactions that trigger a snapshot to disk.' },
  { name: 'heartbeat-interval', default: '100', type: 'integer', unit: 'ms', min: 10, max: 10_000, enumValues: null, description: 'Time between heartbeats.' },
  { name: 'election-timeout', default: '1000', type: 'integer', unit: 'ms', min: 50, max: 50_000, enumValues: null, description: 'Time before an election starts.' },
  { name: 'quota-backend-bytes', default: '0', type: 'integer', unit: 'B', min: 0, max: 8_589_934_592, enumValues: null, description: 'Backend size limit before an alarm (0 = default 2 GiB).' },
  { name: 'auto-compaction-mode', default: 'periodic', type: 'enum', unit: null, min: null, max: null, enumValues: ['periodic', 'revision'], description: 'How auto-compaction retention is read.' },
  { name: 'auto-compaction-retention', default: '0', type: 'string', unit: null, min: null, max: null, enumValues: null, description: 'Retention for auto-compaction (hours or a duration for periodic; revisions for revision). 0 disables.' },
  { name: 'max-request-bytes', default: '1572864', type: 'integer', unit: 'B', min: 1024, max: 67_108_864, enumValues: null, description: 'Largest client request the server accepts.' },
  { name: 'max-txn-ops', default: '128', type: 'integer', unit: null, min: 1, max: 100_000, enumValues: null, description: 'Most operations in one transaction.' },
  { name: 'log-level', default: 'info', type: 'enum', unit: null, min: null, max: null, enumValues: ['debug', 'info', 'warn', 'error', 'panic', 'fatal'], description: 'Log level.' },
];

const settable = new Set(etcdFlags.map((flag) => flag.name));

/** etcd's duration syntax (Go's time.ParseDuration), e.g. 1h30m or 90s. */
const goDuration = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;

/** Checks a flag's value beyond its type: the string flags have their own syntax. */
function checkFlagValue(name: string, value: string): string | null {
  if (name === 'auto-compaction-retention' && !/^\d+$/.test(value) && !goDuration.test(value)) {
    return `${name} must be a whole number (hours or revisions) or a duration such as 30m or 1h.`;
  }
  return null;
}

const paths = (rt: InstanceRuntime) => ({
  data: path.join(rt.dir, 'data'),
  logs: path.join(rt.dir, 'logs'),
  pidFile: path.join(rt.dir, 'etcd.pid'),
  flags: path.join(rt.dir, 'etcd.flags.json'),
});

/**
 * etcd 3.4 maps its backend file with 10 GiB of address space whatever its size (bbolt's initial
 * mmap), and so does etcdctl's snapshot work: their processes get at least this much, whatever the
 * group's per-process limit, which still holds every other process of the instance.
 */
const etcdAddressSpaceBytes = 16 * 1024 ** 3;

function asEtcd(user: EngineUser | null): EngineUser | null {
  if (!user?.dir) return user;
  const limits = user.limits ?? instanceLimits(user.dir);
  const floor = limits.maxMemoryBytes === null ? null : Math.max(limits.maxMemoryBytes, etcdAddressSpaceBytes);
  return { ...user, limits: { ...limits, maxMemoryBytes: floor } };
}

function readFlags(rt: InstanceRuntime): Record<string, string> {
  try {
    return JSON.parse(fs.readFileSync(paths(rt).flags, 'utf8'));
  } catch {
    return {};
  }
}

/** The instance folder, its user's alone; the folders above it stay traversable. */
function makeInstanceFolder(rt: InstanceRuntime) {
  fs.mkdirSync(path.dirname(rt.dir), { recursive: true, mode: 0o711 });
  fs.mkdirSync(rt.dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(rt.dir, 0o700);
  giveToEngineUser(instanceUser(rt), rt.dir);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The instance's members; the first keeps the instance's own data folder and pid file. */
const membersOf = (rt: InstanceRuntime) => membersAt(rt, { data: paths(rt).data, pidFile: paths(rt).pidFile });

export const etcdBackupFormat = 'warden-etcd-v1 (tar: manifest.json, snapshot.db from etcdctl snapshot save)';

/** etcd 3.4 (Debian's etcd-server): one member, or a cluster of 3 or 5, on loopback client and peer ports, zap JSON logs. */
export function etcdEngine(binaries: EngineBinaries): Engine {
  const memberPid = (m: Pick<Member, 'pidFile'>): number | null => {
    const value = readPidFile(m.pidFile);
    return value !== null && isProcessOf(value, binaries.etcdBin) ? value : null;
  };
  /** A running member's pid (the first's when it runs): the instance runs while any member does. */
  const pid = (rt: InstanceRuntime): number | null => {
    for (const m of rt.peerPort ? membersOf(rt) : [{ pidFile: paths(rt).pidFile }]) {
      const found = memberPid(m);
      if (found !== null) return found;
    }
    return null;
  };

  /**
   * Starts every member that is not running (all of them at the first start, which forms the
   * cluster; one lost member later, which rejoins from its data folder) and waits until each answers
   * /health, which a member of a cluster does once a leader is elected.
   */
  async function start(rt: InstanceRuntime) {
    const members = membersOf(rt);
    const stopped = members.filter((m) => memberPid(m) === null);
    if (stopped.length === 0) return;
    // An instance still run by the shared postgres user moves to its own user while stopped.
    if (stopped.length === members.length) migrateInstanceFolder(rt);
    const p = paths(rt);
    const log = path.join(p.logs, 'etcd.log');
    const flags = Object.entries(readFlags(rt))
      // Only flags of the list reach the command line, whatever the file holds.
      .filter(([name]) => settable.has(name))
      .map(([name, value]) => `--${name}=${value}`);
    // A member without data whose cluster has some (one added by a grow) joins it; at the cluster's
    // birth every member starts without data, as a new cluster.
    const hasData = (m: Member) => fs.existsSync(path.join(m.data, 'member'));
    const clusterExists = members.some(hasData);
    const starts = await Promise.allSettled(
      stopped.map(async (m) => {
        // The other members' folders (members/<ordinal>) are the instance user's, like the first's.
        for (const folder of m.ordinal === 1 ? [] : [path.dirname(path.dirname(m.pidFile)), path.dirname(m.pidFile)]) {
          fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
          giveToEngineUser(instanceUser(rt), folder);
        }
        const args = [
          `--name=${m.name}`,
          `--data-dir=${m.data}`,
          `--listen-client-urls=${memberUrl(m)}`,
          `--advertise-client-urls=${memberUrl(m)}`,
          `--listen-peer-urls=${memberPeerUrl(m)}`,
          `--initial-advertise-peer-urls=${memberPeerUrl(m)}`,
          // Read only when the data folder is new: a member that rejoins keeps the cluster it knows.
          `--initial-cluster=${initialCluster(members)}`,
          `--initial-cluster-state=${clusterExists && !hasData(m) ? 'existing' : 'new'}`,
          `--initial-cluster-token=${rt.id}`,
          '--logger=zap',
          '--log-outputs=stderr',
          ...flags,
        ];
        // Every member writes to the instance's one log (appends of whole lines).
        const childPid = await spawnDetached(asEtcd(instanceUser(rt)), binaries.etcdBin, args, log);
        writeInstanceFile(m.pidFile, `${childPid}\n`, { within: rt.dir });
        return { member: m, childPid };
      }),
    );
    const spawned = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    // A member that exited before its process could even be found (a port another process holds) fails
    // the start like one that never answers, and the others still end with it.
    const unstarted = stopped.filter((_, index) => starts[index].status === 'rejected');
    const waiting = new Set(spawned);
    // A cluster forms only once a quorum of its members has started, which a busy host makes slower.
    for (const deadline = Date.now() + (members.length > 1 ? 60_000 : 30_000); unstarted.length === 0 && waiting.size > 0 && Date.now() < deadline; ) {
      for (const s of [...waiting]) if (await healthy(s.member)) waiting.delete(s);
      if ([...waiting].some((s) => !isAlive(s.childPid))) break;
      if (waiting.size > 0) await sleep(200);
    }
    if (waiting.size === 0 && unstarted.length === 0) return ensureEtcdAuth(rt);
    const tail = fs.readFileSync(log, 'utf8').trim().split('\n').slice(-3).join('\n');
    const failing = (unstarted.length > 0 ? unstarted : [...waiting].map((s) => s.member)).map((m) => m.ordinal);
    const which = members.length > 1 ? ` (member ${failing.join(', ')})` : '';
    // What this start spawned ends with it: a first start that failed would otherwise leave members
    // running before authentication was turned on, open to any local process.
    await Promise.all(spawned.map((s) => stopMember(s.member)));
    throw new EngineError(`etcd did not become healthy${which}: ${tail}`);
  }

  /** Ends one member: SIGTERM (etcd 3.4 dies on SIGHUP, and SIGTERM lets it close its database cleanly), SIGKILL after 30 s. */
  async function stopMember(m: Member) {
    const current = memberPid(m);
    if (current === null) return;
    process.kill(current, 'SIGTERM');
    for (let waited = 0; waited < 30_000 && isAlive(current); waited += 100) await sleep(100);
    if (isAlive(current)) process.kill(current, 'SIGKILL');
  }

  async function stop(rt: InstanceRuntime) {
    await Promise.all(membersOf(rt).map(stopMember));
  }

  const statuses = (members: Member[]) => Promise.all(members.map((m) => memberStatus(m, memberPid(m) !== null)));

  /** The first member that answers /health: the one a snapshot or a count reads from. */
  async function healthyMember(rt: InstanceRuntime): Promise<Member | null> {
    for (const m of membersOf(rt)) if (memberPid(m) !== null && (await healthy(m))) return m;
    return null;
  }

  const parameters = async (rt: InstanceRuntime): Promise<ConfigParameter[]> => {
    const set = readFlags(rt);
    return etcdFlags.map((flag) => ({ ...flag, value: (Object.hasOwn(set, flag.name) ? set[flag.name] : flag.default) ?? '', apply: 'restart' }));
  };

  /** etcdctl as `rt`'s user; `binds` are the folders outside its own it works in (a backup's staging folder). */
  const etcdctlIn = (rt: InstanceRuntime, binds: string[], ...args: string[]) =>
    run(asEtcd(instanceUser(rt)), binaries.etcdctlBin, args, { env: etcdRootEnv(rt), timeoutMs: 60 * 60_000, binds });
  const etcdctl = (rt: InstanceRuntime, ...args: string[]) => etcdctlIn(rt, [], ...args);

  /**
   * etcdctl (as `as`'s user) talking to the running member `source`, ended once that member's process
   * is gone: etcdctl 3.4's `snapshot save` would otherwise wait for a dead member for as long as it runs.
   */
  async function etcdctlWhileAlive(source: InstanceRuntime, as: InstanceRuntime, binds: string[], ...args: string[]) {
    // A cluster's snapshot comes from a healthy member (the first, when it is).
    const member = (await healthyMember(source)) ?? membersOf(source)[0];
    const gone = new AbortController();
    const watch = setInterval(() => {
      if (memberPid(member) === null) gone.abort();
    }, 500);
    try {
      return await run(asEtcd(instanceUser(as)), binaries.etcdctlBin, [`--endpoints=${memberUrl(member)}`, ...args], {
        env: etcdRootEnv(source),
        timeoutMs: 60 * 60_000,
        signal: gone.signal,
        binds,
      });
    } catch (error) {
      if (gone.signal.aborted) throw new EngineError('etcd stopped while its snapshot was being saved.');
      throw error;
    } finally {
      clearInterval(watch);
    }
  }

  /** Makes `target`'s data folder (and its logs folder) from a snapshot file the target's user can read. */
  async function restoreSnapshot(snapshot: string, target: InstanceRuntime, skipHashCheck: boolean) {
    if (!target.peerPort) throw new EngineError('An etcd instance needs a peer port.');
    const t = paths(target);
    makeInstanceFolder(target);
    fs.mkdirSync(t.logs, { recursive: true, mode: 0o700 });
    giveToEngineUser(instanceUser(target), t.logs);
    const work = path.join(target.dir, 'restoring');
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(work, { mode: 0o700 });
    giveToEngineUser(instanceUser(target), work);
    const peerUrl = `http://127.0.0.1:${target.peerPort}`;
    await etcdctlIn(
      target,
      [path.dirname(snapshot)],
      'snapshot', 'restore', snapshot,
      `--data-dir=${path.join(work, 'data')}`,
      `--name=${target.id}`,
      `--initial-cluster=${target.id}=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      ...(skipHashCheck ? ['--skip-hash-check'] : []),
    );
    fs.rmSync(t.data, { recursive: true, force: true });
    fs.renameSync(path.join(work, 'data'), t.data);
    fs.rmSync(work, { recursive: true, force: true });
  }

  return {
    type: 'etcd',

    async unavailable() {
      return fs.existsSync(binaries.etcdBin) ? null : `etcd is not installed at ${binaries.etcdBin}: install the Debian package etcd-server.`;
    },

    async version() {
      const { stdout } = await run(null, binaries.etcdBin, ['--version']);
      return /etcd Version:\s+(\S+)/.exec(stdout)?.[1] ?? stdout.trim();
    },

    async initialize(rt, initialParameters = {}) {
      const p = paths(rt);
      makeInstanceFolder(rt);
      for (const dir of [p.data, p.logs]) {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        giveToEngineUser(instanceUser(rt), dir);
      }
      writeInstanceFile(p.flags, JSON.stringify(initialParameters, null, 2), { within: rt.dir });
    },

    start,
    stop,
    async restart(rt) {
      await stop(rt);
      await start(rt);
    },
    async reload(rt) {
      // No live reload: a restart with the new flags (never SIGHUP, which kills etcd 3.4).
      await stop(rt);
      await start(rt);
      return { errors: [], pendingRestart: [] };
    },

    pid,

    async probe(rt): Promise<EngineHealth> {
      const checks: HealthCheck[] = [];
      const running = pid(rt) !== null;
      const members = membersOf(rt);
      if (members.length === 1) {
        checks.push({ name: 'process', level: running ? 'good' : 'error', message: running ? 'etcd is running' : 'etcd is not running' });
        let serving = false;
        if (running) {
          const ok = await healthy(rt);
          const upkeep = await maintenanceChecks(rt);
          // etcd's /health says false while an alarm is raised: it still serves reads, and the alarm's check says why.
          const alarmed = upkeep.some((c) => c.name === 'alarms');
          serving = ok || alarmed;
          checks.push({
            name: 'health',
            level: ok ? 'good' : alarmed ? 'warn' : 'error',
            message: ok ? '/health answers true' : alarmed ? '/health answers false while an alarm is raised' : '/health does not answer true',
          });
          checks.push(...upkeep);
        }
        const level = checks.some((c) => c.level === 'error') ? 'error' : checks.some((c) => c.level === 'warn') ? 'warn' : 'good';
        // A raised alarm is an error of its health, not a sign it is down: it still answers reads.
        return { running: serving, level, checks };
      }
      const health = clusterHealth(await statuses(members), running);
      if (!health.running) return health;
      const all = [...health.checks, ...(await maintenanceChecks(rt))];
      return { running: true, checks: all, level: all.some((c) => c.level === 'error') ? 'error' : all.some((c) => c.level === 'warn') ? 'warn' : 'good' };
    },

    members: (rt) => statuses(membersOf(rt)),

    stoppedMembers(rt) {
      const members = rt.peerPort ? membersOf(rt) : [];
      return members.filter((m) => memberPid(m) === null).map((m) => m.ordinal);
    },

    parameters,
    // Flags are read at start only: a saved change is applied by the restart that saves it.
    pendingRestart: async () => [],

    async validate(rt, changes) {
      const known = new Map((await parameters(rt)).map((flag) => [flag.name, flag]));
      const errors: [string, string[]][] = [];
      for (const [name, value] of Object.entries(changes)) {
        const problem =
          parameterPolicy('etcd', name).policy === 'managed'
            ? `${name} is managed by Warden.`
            : (checkValue(known.get(name), name, value, { units: false, host: thisHost() }) ?? checkFlagValue(name, value));
        if (problem) errors.push([name, [problem.replace(`Unknown parameter ${name}.`, `Unknown etcd flag ${name}.`)]]);
      }
      return Object.fromEntries(errors);
    },

    async apply(rt, changes): Promise<ApplyResult> {
      writeInstanceFile(paths(rt).flags, JSON.stringify({ ...readFlags(rt), ...changes }, null, 2), { within: rt.dir });
      return { reload: [], restart: Object.keys(changes) };
    },

    resetManaged(rt) {
      const saved = readFlags(rt);
      const removed = Object.keys(saved).filter((name) => !settable.has(name));
      if (removed.length === 0) return [];
      for (const name of removed) delete saved[name];
      writeInstanceFile(paths(rt).flags, JSON.stringify(saved, null, 2), { within: rt.dir });
      return removed;
    },

    async clone(source, target) {
      const online = pid(source) !== null;
      makeInstanceFolder(target);
      const work = path.join(target.dir, 'restore');
      fs.mkdirSync(work, { recursive: true, mode: 0o700 });
      giveToEngineUser(instanceUser(target), work);
      const snapshot = path.join(work, 'snapshot.db');
      if (online) {
        // The clone's user saves the snapshot over the source's client port into its own folder.
        await etcdctlWhileAlive(source, target, [], 'snapshot', 'save', snapshot);
      } else {
        // A stopped member's backend file is a snapshot without the integrity hash a saved one has.
        fs.copyFileSync(path.join(paths(source).data, 'member', 'snap', 'db'), snapshot);
        giveToEngineUser(instanceUser(target), snapshot);
      }
      await restoreSnapshot(snapshot, target, !online);
      giveCloneRoot(source, target);
      fs.rmSync(work, { recursive: true, force: true });
      writeInstanceFile(paths(target).flags, JSON.stringify(readFlags(source), null, 2), { within: target.dir });
    },

    async backupDatabase(rt, dir, progress) {
      if (pid(rt) === null) throw new EngineError('The instance is not running: start it to take a database backup (or take a file backup of the stopped instance).');
      const endpoint = `--endpoints=${memberUrl((await healthyMember(rt)) ?? membersOf(rt)[0])}`;
      const status = JSON.parse((await etcdctl(rt, endpoint, 'endpoint', 'status', '-w', 'json')).stdout) as { Status?: { dbSize?: number } }[];
      const expected = status[0]?.Status?.dbSize ?? null;
      const snapshot = path.join(dir, 'snapshot.db');
      const watch = setInterval(() => {
        for (const file of [`${snapshot}.part`, snapshot]) {
          try {
            const bytes = fs.statSync(file).size;
            progress({ bytes, percent: expected ? Math.min(99, (bytes / expected) * 100) : null, step: 'saving the snapshot' });
            return;
          } catch {
            // not there yet
          }
        }
      }, 250);
      try {
        progress({ bytes: 0, percent: expected ? 0 : null, step: 'saving the snapshot' });
        await etcdctlWhileAlive(rt, rt, [dir], 'snapshot', 'save', snapshot);
      } finally {
        clearInterval(watch);
      }
      const saved = JSON.parse((await etcdctlIn(rt, [dir], 'snapshot', 'status', snapshot, '-w', 'json')).stdout) as { revision: number; totalSize: number };
      const counted = JSON.parse(
        (await etcdctl(rt, endpoint, 'get', '', '--from-key', '--limit=1', `--rev=${saved.revision}`, '-w', 'json')).stdout,
      ) as { count?: number };
      const { stdout: toolVersion } = await etcdctl(rt, 'version');
      const contents = {
        revision: saved.revision,
        keyCount: counted.count ?? 0,
        tools: { etcdctl: toolVersion.split('\n')[0].trim() },
      };
      const manifest = { format: etcdBackupFormat, engine: 'etcd', takenAt: new Date().toISOString(), ...contents, file: 'snapshot.db' };
      writeInstanceFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2), { within: dir });
      return { format: etcdBackupFormat, contents };
    },

    async restoreDatabase(dir, rt, parameters) {
      const snapshot = path.join(dir, 'snapshot.db');
      if (!fs.existsSync(snapshot)) throw new EngineError('The backup holds no etcd snapshot (snapshot.db).');
      await restoreSnapshot(snapshot, rt, false);
      turnAuthOffForFirstStart(paths(rt).data);
      writeInstanceFile(paths(rt).flags, JSON.stringify(parameters, null, 2), { within: rt.dir });
      await start(rt);
    },

    async inspect(rt) {
      const member = (await healthyMember(rt)) ?? membersOf(rt)[0];
      const counted = JSON.parse(
        (await etcdctl(rt, `--endpoints=${memberUrl(member)}`, 'get', '', '--from-key', '--limit=1', '-w', 'json')).stdout,
      ) as { header: { revision: number }; count?: number };
      return { revision: counted.header.revision, keyCount: counted.count ?? 0 };
    },

    fileBackupPaths(rt, withData) {
      const wanted = withData ? ['etcd.flags.json', 'logs', 'data', 'members'] : ['etcd.flags.json', 'logs'];
      return wanted.filter((relative) => fs.existsSync(path.join(rt.dir, relative)));
    },

    logDir: (rt) => paths(rt).logs,

    async remove(rt) {
      if (pid(rt) !== null) throw new EngineError('The instance is running: stop it before removing it.');
      fs.rmSync(rt.dir, { recursive: true, force: true });
      await removeInstanceUser(rt.id);
    },
  };
}
