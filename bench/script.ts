import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Backup, BackupCompletedPayload } from '../contracts/backups';
import type { Instance, OperationCompletedPayload } from '../contracts/instances';
import { finishedScriptRunStatuses, type ScriptRun, type ScriptRunUpdatedPayload } from '../contracts/scripts';
import { buildApp } from '../server/app';
import { startCookieSession } from '../server/auth/sessions';
import { systemClock } from '../server/clock';
import { openDb } from '../server/db/open';
import { createUser } from '../server/db/users';
import { pgSocketDir } from '../server/engines/pg';
import { instanceUser, instanceUserName } from '../server/engines/instanceUsers';
import { InProcessBus } from '../server/hub/bus';
import { sessionCookieName } from '../server/http/sessionCookie';
import { sandboxName } from '../server/scripts/sandbox';
import { benchConfig } from './lib/benchConfig';
import { pgTool } from './lib/pgTool';
import { recordPublished } from './lib/publishedEvents';
import { seededRandom } from './lib/seededRandom';
import { loadAverage, median } from './lib/figures';

// `npm run bench -- script`: time to the first statement of a script run on a real PostgreSQL 15 instance of
// about 100 MB (pgbench -i -s 7), from 'live' (pg_basebackup of the running instance) and from the newest
// backup (restore into a fresh sandbox), each beside a plain clone of the same instance from the same source
// (POST …/clone, live or {backupId}) in the same round. BENCH_SCRIPT_1GB=1 adds a ~1 GB instance (-s 70).
// `npm run bench -- script --leftovers`: instead, runs cancelled at random moments, then a search for anything they left.

const sizes = [7, ...(process.env.BENCH_SCRIPT_1GB === '1' ? [70] : [])];
const rounds = 3;
const password = 'Bench-Password-7';
/** Away from the default range, the tests' 16400+ and the other benches. */
const instancePorts = '17800-17899';
const targetRatio = 1.2;

const seconds = (ms: number) => (ms / 1000).toFixed(2);

/** A real server on a fresh data dir, signed in as an admin, recording every published event. */
async function startServer() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-script-'));
  chmodSync(dataDir, 0o711);
  const config = benchConfig(dataDir, { WARDEN_INSTANCE_PORTS: instancePorts, WARDEN_INSTANCE_CREATE_RATE_LIMIT: '1000' });
  const origin = new URL(config.publicUrl).origin;
  const db = openDb(config);
  const bus = new InProcessBus();
  const { whenPublished } = recordPublished(bus);

  const app = buildApp(config, { db, bus, logger: false });
  const created: string[] = [];
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const admin = await createUser(db, { email: 'admin@bench.local', password, role: 'admin' });
  const session = await startCookieSession({ db, clock: systemClock }, admin.id, true, { ip: null, userAgent: null });
  const cookie = `${sessionCookieName}=${session.token}`;
  /** A call answering its status and body, for callers that expect a refusal. */
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const response = await fetch(baseUrl + url, {
      method,
      headers: { cookie, origin, accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, text: await response.text() };
  };
  const api = async <T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> => {
    const { status, text } = await call(method, url, body);
    if (status >= 300) throw new Error(`${method} ${url}: ${status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
  const operated = async (instanceId: string, kind: string, timeoutMs: number) => {
    const { payload, at } = await whenPublished<OperationCompletedPayload>('OperationCompleted', (p) => p.instanceId === instanceId && p.kind === kind, timeoutMs);
    if (!payload.ok) throw new Error(`${kind} of ${instanceId} failed: ${payload.error}`);
    return at;
  };
  /** A new instance through the API, running. */
  const createInstance = async (name: string, type: 'pg' | 'etcd') => {
    const made = await api<Instance>('POST', '/instances', { name, type });
    created.push(made.id);
    await operated(made.id, 'create', 120_000);
    return api<Instance>('GET', `/instances/${made.id}`);
  };
  /** A database backup of the instance, succeeded. */
  const backUp = async (instanceId: string) => {
    const posted = await api<Backup>('POST', `/instances/${instanceId}/backups/database/backup`, {});
    const backup = (await whenPublished<BackupCompletedPayload>('BackupCompleted', (p) => p.backup.id === posted.id, 30 * 60_000)).payload.backup;
    if (backup.status !== 'succeeded') throw new Error(`backup failed: ${backup.error}`);
    return backup;
  };
  const close = async () => {
    await app.scripts.idle();
    await app.backups.idle();
    await app.instances.idle();
    for (const id of created.reverse()) await app.instances.delete(id, true).catch((error: unknown) => console.error(`deleting ${id}: ${String(error)}`));
    await app.close();
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { app, call, api, whenPublished, operated, createInstance, backUp, created, close };
}

type Server = Awaited<ReturnType<typeof startServer>>;

async function timeToFirstStatement(server: Server) {
  const { app, api, whenPublished, operated, createInstance, backUp, created } = server;
  console.log(
    'Script runs on a real PostgreSQL 15 instance created through Warden and filled by pgbench into its default database: time from ' +
      "POST …/script {script: 'select 1; …', source} to the ScriptRunUpdated event of statement 1 (the sandbox made, started, its tables " +
      "counted, the owner connected), for source 'live' and 'latest-backup'; beside a plain clone of the same instance (POST …/clone → " +
      "the clone running), live or from the same backup. Order alternates per round; medians of 3; overhead ratio = sandbox ÷ clone.\n" +
      `Load average (1/5/15 min) at start: ${loadAverage()} on ${os.cpus().length} CPUs.\n`,
  );
  const summary: string[] = [];
  for (const scale of sizes) {
    const instance = await createInstance(`bench-script-${scale}`, 'pg');
    const dir = app.instances.runtime({ id: instance.id, port: instance.port, peer_port: null }).dir;
    const secret = (await api<{ password: string }>('POST', `/instances/${instance.id}/connection/secret?role=superuser`, {})).password;
    const rt = { id: instance.id, dir, port: instance.port };
    const target = { user: instanceUser(rt), socket: pgSocketDir(rt), port: instance.port, password: secret };
    const tool = async (name: string, args: string[]) => (await pgTool(target, name, args)).stdout;
    const started = performance.now();
    await tool('pgbench', ['-i', '-q', '-s', String(scale), 'app']);
    const bytes = Number(await tool('psql', ['-X', '-At', '-d', 'app', '-c', "select pg_database_size('app')"]));
    console.log(`pgbench -i -s ${scale}: database app is ${(bytes / 1024 / 1024).toFixed(1)} MB (filled in ${seconds(performance.now() - started)} s)`);
    const backup = await backUp(instance.id);

    /** POST → statement 1 running; then waits for the end (sandbox removed) untimed. */
    const sandbox = async (source: 'live' | 'latest-backup') => {
      const postedAt = performance.now();
      const run = await api<ScriptRun>('POST', `/instances/${instance.id}/script`, { script: 'select 1;\nselect 2', source });
      // Statement 1 running, or the end of a run that never got there.
      const first = await whenPublished<ScriptRunUpdatedPayload>(
        'ScriptRunUpdated',
        (p) => p.run.id === run.id && (p.run.progress?.statement === 1 || p.run.phase === 'finished'),
        30 * 60_000,
      );
      await app.scripts.idle();
      const done = await api<ScriptRun>('GET', `/instances/${instance.id}/script/runs/${run.id}`);
      if (done.status !== 'succeeded') throw new Error(`script run ${done.status}: ${done.error ?? JSON.stringify(done.results.at(-1)?.error)}`);
      return first.at - postedAt;
    };
    /** POST clone → the clone running; then the clone is deleted untimed. */
    const clone = async (backupId?: string) => {
      const postedAt = performance.now();
      const copy = await api<Instance>('POST', `/instances/${instance.id}/clone`, { name: `bench-clone-${created.length}`, ...(backupId && { backupId }) });
      created.push(copy.id);
      const at = await operated(copy.id, 'clone', 30 * 60_000);
      await app.instances.idle();
      await app.instances.delete(copy.id, true);
      await app.instances.idle();
      created.splice(created.indexOf(copy.id), 1);
      return at - postedAt;
    };

    const times = { live: [] as number[], cloneLive: [] as number[], backup: [] as number[], cloneBackup: [] as number[] };
    for (let round = 1; round <= rounds; round++) {
      const sandboxFirst = round % 2 === 1;
      if (sandboxFirst) {
        times.live.push(await sandbox('live'));
        times.cloneLive.push(await clone());
        times.backup.push(await sandbox('latest-backup'));
        times.cloneBackup.push(await clone(backup.id));
      } else {
        times.cloneLive.push(await clone());
        times.live.push(await sandbox('live'));
        times.cloneBackup.push(await clone(backup.id));
        times.backup.push(await sandbox('latest-backup'));
      }
      console.log(
        `round ${round}: live sandbox ${seconds(times.live.at(-1)!)} s, live clone ${seconds(times.cloneLive.at(-1)!)} s, ` +
          `backup sandbox ${seconds(times.backup.at(-1)!)} s, clone from backup ${seconds(times.cloneBackup.at(-1)!)} s (load ${loadAverage()})`,
      );
    }
    const ratioLive = median(times.live) / median(times.cloneLive);
    const ratioBackup = median(times.backup) / median(times.cloneBackup);
    const verdict = (ratio: number) => (ratio <= targetRatio ? 'met' : 'NOT met');
    const lines = [
      `-s ${scale} (${(bytes / 1024 / 1024).toFixed(0)} MB), medians of ${rounds}:`,
      `  live:          sandbox to first statement ${seconds(median(times.live))} s, plain clone ${seconds(median(times.cloneLive))} s, ratio ${ratioLive.toFixed(3)} (target ≤ ${targetRatio}: ${verdict(ratioLive)})`,
      `  newest backup: sandbox to first statement ${seconds(median(times.backup))} s, clone from it ${seconds(median(times.cloneBackup))} s, ratio ${ratioBackup.toFixed(3)} (target ≤ ${targetRatio}: ${verdict(ratioBackup)})`,
    ];
    summary.push(...lines);
    console.log(lines.join('\n'));
  }
  console.log(`\n${summary.join('\n')}\nLoad average at end: ${loadAverage()}`);
}

// ---- Leftovers under random cancels (`npm run bench -- script --leftovers`) ----

const leftoverRuns = { pg: 50, etcd: 10 } as const;
/** When a run is cancelled: at once after POST, a random while into preparing, a random while into its statements, or never. */
const cancelMoments = ['before start', 'while preparing', 'while running', 'not at all'] as const;
type CancelMoment = (typeof cancelMoments)[number];
const leftoverScripts = {
  // Statement 3 sleeps, so a cancel 'while running' lands in it most of the time.
  pg: 'create table filled (n int);\ninsert into filled select generate_series(1, 1000);\nselect pg_sleep(1.5);\nselect count(*) from filled',
  etcd: 'put bench/a 1\nput bench/b 2\nget --prefix bench/\ndel bench/b\nget bench/a',
} as const;
/** How long after the statements start a cancel 'while running' may come: within the pg script's sleep, within the etcd commands. */
const runningWindowMs = { pg: 1500, etcd: 100 } as const;


const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The passwd entry's uid of a system user, or null when there is none. */
function userId(name: string): number | null {
  const found = spawnSync('getent', ['passwd', name], { encoding: 'utf8' });
  return found.status === 0 ? Number(found.stdout.split(':')[2]) : null;
}

/** Processes run by one of `uids`, or whose working folder or command line lies under `dirPrefix`. */
function processesOf(uids: Set<number>, dirPrefix: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // A process that just ended, or a kernel thread.
      }
      if (uids.has(uid) || cwd.startsWith(dirPrefix) || cmdline.includes(dirPrefix)) found.push(`pid ${pid} uid ${uid}: ${cmdline.slice(0, 120)}`);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

interface LeftoverRun {
  type: 'pg' | 'etcd';
  source: 'live' | 'latest-backup';
  moment: CancelMoment;
  status: string;
  /** Whether the cancel came too late (409: the run had ended). */
  late: boolean;
  leftovers: string[];
}

/**
 * 50 runs on a small pg instance and 10 on an etcd one, each cancelled at a random moment, sources
 * mixed; after each run and after all of them: no `.scratch-*` folder, no sandbox system user, no
 * process of a sandbox user or in a sandbox folder, no port reserved in the pool, every run finished.
 */
async function leftovers(server: Server) {
  const { app, call, api, whenPublished, createInstance, backUp } = server;
  const seed = Number(process.env.BENCH_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  console.log(
    `Leftovers under random cancels: ${leftoverRuns.pg} script runs on a small PostgreSQL 15 instance and ${leftoverRuns.etcd} on an etcd 3.4 one, ` +
      `each cancelled ${cancelMoments.join(' / ')} (picked at random), source live or latest-backup (at random); seed ${seed} (BENCH_SEED replays it).\n` +
      `Load average (1/5/15 min) at start: ${loadAverage()} on ${os.cpus().length} CPUs.\n`,
  );
  const scratchPrefix = path.join(app.instances.instancesDir, '.scratch-');
  const sandboxUsers = new Map<string, number | null>();
  const instanceUsers: string[] = [];
  const runs: LeftoverRun[] = [];
  for (const type of ['pg', 'etcd'] as const) {
    const instance = await createInstance(`bench-leftovers-${type}`, type);
    instanceUsers.push(instanceUserName(instance.id));
    await backUp(instance.id);
    for (let index = 0; index < leftoverRuns[type]; index++) {
      const source = pick(['live', 'latest-backup'] as const);
      const moment = pick(cancelMoments);
      const run = await api<ScriptRun>('POST', `/instances/${instance.id}/script`, { script: leftoverScripts[type], source });
      const userName = instanceUserName(`scratch-${sandboxName(run.id)}`);
      // The sandbox user lives only while the run does: its uid is noted as soon as it appears.
      const watch = setInterval(() => {
        const uid = userId(userName);
        if (uid !== null) sandboxUsers.set(userName, uid);
      }, 50);
      sandboxUsers.set(userName, sandboxUsers.get(userName) ?? null);
      const reached = (match: (p: ScriptRunUpdatedPayload) => boolean) =>
        whenPublished<ScriptRunUpdatedPayload>('ScriptRunUpdated', (p) => p.run.id === run.id && (match(p) || p.run.phase === 'finished'), 120_000);
      let late = false;
      if (moment !== 'not at all') {
        if (moment === 'while preparing') {
          await reached((p) => p.run.phase === 'preparing');
          await delay(random() * 1500);
        } else if (moment === 'while running') {
          await reached((p) => p.run.phase === 'running');
          await delay(random() * runningWindowMs[type]);
        }
        const cancelled = await call('POST', `/instances/${instance.id}/script/runs/${run.id}/cancel`, {});
        if (cancelled.status === 409) late = true;
        else if (cancelled.status >= 300) throw new Error(`cancel: ${cancelled.status} ${cancelled.text.slice(0, 300)}`);
      }
      await reached(() => false);
      await app.scripts.idle();
      clearInterval(watch);
      const done = await api<ScriptRun>('GET', `/instances/${instance.id}/script/runs/${run.id}`);
      const found: string[] = [];
      const dir = `${scratchPrefix}${type}-${sandboxName(run.id)}`;
      if (existsSync(dir)) found.push(`folder ${dir}`);
      if (userId(userName) !== null) found.push(`user ${userName}`);
      if (!(finishedScriptRunStatuses as readonly string[]).includes(done.status)) found.push(`run ended ${done.status}/${done.phase}`);
      runs.push({ type, source, moment, status: done.status, late, leftovers: found });
      const why = done.status === 'failed' ? ` (${(done.error ?? JSON.stringify(done.results.at(-1)?.error ?? null)).split('\n')[0].slice(0, 100)})` : '';
      console.log(
        `${type} #${index + 1} ${source}, cancel ${moment}${late ? ' (too late: 409)' : ''}: ${done.status}${why}${found.length ? ` — LEFT: ${found.join(', ')}` : ''}`,
      );
    }
  }

  // After every run: the whole machine, not only each run's own traces.
  const folders = readdirSync(app.instances.instancesDir).filter((name) => name.startsWith('.scratch-'));
  const users = [...sandboxUsers.keys()].filter((name) => userId(name) !== null);
  const seen = [...sandboxUsers.values()].filter((uid): uid is number => uid !== null);
  // userdel frees a uid for the next useradd: a real instance made after a sandbox may hold its uid.
  const instanceUids = new Set(instanceUsers.map(userId));
  const uids = new Set(seen.filter((uid) => !instanceUids.has(uid)));
  const processes = processesOf(uids, scratchPrefix);
  // The pool keeps its scratch reservations to itself; the bench reads them to prove none is left.
  const reserved = [...app.instances.ports['reserved']];
  const unfinished = runs.filter((r) => !(finishedScriptRunStatuses as readonly string[]).includes(r.status));

  const lines = [`Leftover check, seed ${seed}: ${runs.length} runs (${seen.length} sandbox users seen while they lived, ${new Set(seen).size} distinct uids).`];
  for (const type of ['pg', 'etcd'] as const) {
    const ofType = runs.filter((r) => r.type === type);
    for (const moment of cancelMoments) {
      const ofMoment = ofType.filter((r) => r.moment === moment);
      if (ofMoment.length === 0) continue;
      const counts = new Map<string, number>();
      for (const r of ofMoment) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
      const late = ofMoment.filter((r) => r.late).length;
      lines.push(
        `  ${type}, cancel ${moment}: ${ofMoment.length} runs — ${[...counts].map(([status, count]) => `${status} ${count}`).join(', ')}${late ? ` (${late} cancels too late)` : ''}`,
      );
    }
    const totals = new Map<string, number>();
    for (const r of ofType) totals.set(r.status, (totals.get(r.status) ?? 0) + 1);
    lines.push(`  ${type} total: ${[...totals].map(([status, count]) => `${status} ${count}`).join(', ')}`);
  }
  const report = (what: string, items: string[]) => `  ${what}: ${items.length === 0 ? 'none' : items.join('; ')}`;
  lines.push(
    report('runs not in a final status', unfinished.map((r) => `${r.type} ${r.status}`)),
    report('.scratch-* folders', folders),
    report('sandbox system users', users),
    report('sandbox processes', processes),
    report('ports reserved in the pool', reserved.map(String)),
    report('leftovers seen right after a run', runs.flatMap((r) => r.leftovers)),
  );
  const clean = [unfinished, folders, users, processes, reserved, runs.flatMap((r) => r.leftovers)].every((items) => items.length === 0);
  lines.push(clean ? 'Zero leftovers: target met.' : 'LEFTOVERS FOUND: target NOT met.');
  console.log(`\n${lines.join('\n')}\nLoad average at end: ${loadAverage()}`);
  if (!clean) process.exitCode = 1;
}

async function main() {
  setTimeout(() => {
    console.error('bench/script: gave up after 40 min');
    process.exit(1);
  }, 40 * 60_000).unref();
  const server = await startServer();
  try {
    if (process.argv.includes('--leftovers')) await leftovers(server);
    else await timeToFirstStatement(server);
  } finally {
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
