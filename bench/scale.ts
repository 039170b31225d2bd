import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import { sql } from 'kysely';
import pg from 'pg';
import { hubPath, type DebugMessagePayload } from '../contracts/hub';
import { startCookieSession } from '../server/auth/sessions';
import { systemClock } from '../server/clock';
import { createGroup } from '../server/db/groups';
import type { InstanceRow } from '../server/db/instances';
import { migrateToLatest } from '../server/db/migrations';
import { openDb } from '../server/db/open';
import { isPostgres, openPostgresStore } from '../server/db/postgresStore';
import type { Db } from '../server/db/schema';
import { createUser } from '../server/db/users';
import { sessionCookieName } from '../server/http/sessionCookie';
import { freePort } from '../test/e2e/wardenProcess';
import { startStoreServer, templateName, type StoreServer } from '../test/server/storeServer';
import { hostDefaults } from '../server/config';
import { benchConfig } from './lib/benchConfig';
import { adoptionTimes, lostDetectionTimes } from './lib/hostFigures';
import { coresUsed, cpuSample, type CpuGroups } from './lib/cpuTime';
import { loadAverage, median, percentile, table, whole } from './lib/figures';
import { get, HttpLoad } from './lib/httpLoad';
import { seededRandom } from './lib/seededRandom';

// `npm run bench -- scale [--quick]`: what a PostgreSQL store and a second server buy. GET /instances
// under closed-loop load on one server over SQLite, one over PostgreSQL and two over one PostgreSQL
// store behind HAProxy, each server a process of its own; the list alone beside GET /healthz, at
// 100,000 instances too; and hub events published on one server delivered to a browser on the other.
// The targets: PostgreSQL's p99 within 1.5× SQLite's, the list at 100,000 ≤ 3× /healthz, cross-server
// delivery p99 ≤ 50 ms.

const quick = process.argv.includes('--quick');
const clients = 8;
const passCount = quick ? 3 : 5;
const passSeconds = quick ? 2 : 5;
const warmupSeconds = quick ? 1 : 3;
/** The probe's pace: light enough (100/s) not to take from the load it measures. */
const probeEveryMs = 10;
const fleetSize = 10_000;
const bigFleetSize = quick ? 20_000 : 100_000;
/** List and /healthz requests of each pass of the big list, one pair after the other. */
const pairsPerPass = quick ? 100 : 200;
const warmupPairs = 20;
const hubEvents = quick ? 500 : 1000;
const warmupEvents = 20;
/** A delivery not seen by then is counted lost. */
const deliveryTimeoutMs = 5_000;
const adoptCount = 500;
const adoptRounds = quick ? 2 : 5;
const lostRounds = quick ? 1 : 3;
const groupCount = 50;
/** The console's instance list as it opens from a link: page 1 of 25, sorted by name. */
const firstPage = '/instances?page=1&pageSize=25';
const password = 'Bench-Password-7';
const day = 24 * 3600 * 1000;
const root = path.resolve(__dirname, '..');
const haproxyBin = '/usr/sbin/haproxy';
/** The Origin the hub and POST /debug require: the one the servers' config allows. */
const origin = benchConfig(os.tmpdir()).allowedOrigins[0];

// ---- Everything this bench starts is stopped on the way out, whatever happens ----

const children = new Set<ChildProcess>();
let storeServer: StoreServer | null = null;
const tempDirs: string[] = [];

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** The last resort (an error, a signal, the time limit): synchronous, so that it also runs from process.on('exit'). */
function killEverything() {
  for (const child of children) if (!hasExited(child)) child.kill('SIGKILL');
  children.clear();
  storeServer?.stop();
  storeServer = null;
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
process.on('exit', killEverything);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

/** Asks a child to stop and waits; killed when it has not stopped within 5 s. */
async function stopChild(child: ChildProcess) {
  if (hasExited(child)) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(force);
  children.delete(child);
}

// ---- Stores: 50 groups, the instances' rows, an admin with a session ----

const teams = ['billing', 'orders', 'search', 'analytics', 'payments', 'inventory', 'identity', 'catalog', 'shipping', 'support'];
const purposes = ['primary store', 'read replica', 'staging copy', 'nightly reporting', 'session cache', 'queue'];

/** `count` rows created over the last two years, as bench/instances.ts seeds them but with fewer shades of status. */
function instanceRows(count: number, groupIds: string[]): InstanceRow[] {
  const random = seededRandom(11);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
  const now = Date.now();
  const createdAt = Array.from({ length: count }, () => now - random() * 730 * day).sort((a, b) => a - b);
  return createdAt.map((at, index) => {
    const type: InstanceRow['type'] = random() < 0.7 ? 'pg' : 'etcd';
    const running = random() < 0.8;
    const team = pick(teams);
    return {
      version: 0,
      host_id: null,
      id: randomUUID(),
      name: `${team}-${type}-${String(index).padStart(6, '0')}`,
      type,
      status: running ? 'running' : 'stopped',
      desired_state: running ? 'running' : 'stopped',
      status_reason: null,
      health_level: running ? 'good' : 'error',
      health_checks: JSON.stringify([
        running
          ? { name: 'reachable', level: 'good', message: 'accepts connections' }
          : { name: 'reachable', level: 'error', message: 'connection refused' },
      ]),
      member_ports: null,
      cluster: null,
      group_id: random() < 0.02 ? null : pick(groupIds),
      engine_version: type === 'pg' ? '16.4' : '3.5.16',
      // Rows only, never started: the (unique) ports need not be real ones.
      port: 20_000 + 2 * index,
      peer_port: type === 'etcd' ? 20_001 + 2 * index : null,
      description: `${pick(purposes)} of the ${team} team`,
      created_at: new Date(at).toISOString(),
      created_by: 'admin@bench.local',
      last_backup_at: null,
      operation_kind: null,
      operation_started_at: null,
    };
  });
}

/** Seeds a store and closes it; answers the cookie header of an admin's session in it. */
async function seedStore(db: Db, instanceCount: number): Promise<string> {
  try {
    await migrateToLatest(db);
    const now = new Date();
    const groupIds: string[] = [];
    for (let i = 0; i < groupCount; i++) groupIds.push((await createGroup(db, { name: `bench-group-${i}` }, now)).id);
    const rows = instanceRows(instanceCount, groupIds);
    // 19 columns a row: within SQLite's 32,766 and PostgreSQL's 65,535 parameters a statement.
    await db.transaction().execute(async (trx) => {
      for (let start = 0; start < rows.length; start += 1000) await trx.insertInto('instances').values(rows.slice(start, start + 1000)).execute();
    });
    // What autovacuum does within a minute or so of such inserts (it vacuums after inserts since
    // PostgreSQL 13); SQLite's store is never analyzed by the server.
    if (isPostgres(db)) await sql`vacuum analyze`.execute(db);
    const admin = await createUser(db, { email: 'admin@bench.local', password, role: 'admin' });
    const session = await startCookieSession({ db, clock: systemClock }, admin.id, true, { ip: null, userAgent: null });
    return `${sessionCookieName}=${session.token}`;
  } finally {
    await db.destroy();
  }
}

/** A new database on the store server, a copy of the migrated template; answers its URL. */
async function storeDatabase(store: StoreServer, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: `${store.baseUrl}postgres` });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateName}`);
  } finally {
    await admin.end();
  }
  return `${store.baseUrl}${name}`;
}

// ---- Servers and the proxy ----

interface Server {
  name: string;
  baseUrl: string;
  port: number;
  child: ChildProcess;
}

/**
 * A server in its own process (bench/lib/scaleServer.ts) on the SQLite store in `dataDir`, or on the
 * PostgreSQL store at `databaseUrl`. Run by node with tsx's loader rather than the tsx wrapper, which
 * forks: the child's pid is the server's, for its CPU time and to stop it.
 */
function startServer(name: string, dataDir: string, databaseUrl?: string): Promise<Server> {
  const script = path.join(__dirname, 'lib', 'scaleServer.ts');
  // stdin is a pipe the server watches: it stops when this process goes away.
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir, ...(databaseUrl ? [databaseUrl] : [])], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server ${name} did not start within 60 s:\n${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /^listening (\d+)$/m.exec(output);
      if (!listening) return;
      clearTimeout(timer);
      const port = Number(listening[1]);
      resolve({ name, baseUrl: `http://127.0.0.1:${port}`, port, child });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server ${name} exited (${code ?? signal}):\n${output}`));
    });
  });
}

interface Proxy {
  /** Round robin over both servers. */
  both: string;
  /** The first server alone, through the same proxy: what the proxy itself costs. */
  first: string;
  child: ChildProcess;
}

/** HAProxy in HTTP mode on one thread; each answer names the server that gave it (x-served-by). */
async function startProxy(dir: string, first: Server, second: Server): Promise<Proxy> {
  const [bothPort, firstPort] = [await freePort(), await freePort()];
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    file,
    `global
  nbthread 1
  maxconn 1000
defaults
  mode http
  timeout connect 5s
  timeout client 120s
  timeout server 120s
  timeout http-keep-alive 120s
frontend both
  bind 127.0.0.1:${bothPort}
  default_backend both
frontend first
  bind 127.0.0.1:${firstPort}
  default_backend first
backend both
  balance roundrobin
  http-response set-header x-served-by %[srv_name]
  server ${first.name} 127.0.0.1:${first.port}
  server ${second.name} 127.0.0.1:${second.port}
backend first
  http-response set-header x-served-by %[srv_name]
  server ${first.name} 127.0.0.1:${first.port}
`,
  );
  const child = spawn(haproxyBin, ['-db', '-f', file], { stdio: ['ignore', 'inherit', 'inherit'] });
  children.add(child);
  // HAProxy says nothing when it listens: its ports answer.
  for (const port of [bothPort, firstPort]) {
    for (let attempt = 0; !(await accepts(port)); attempt++) {
      if (hasExited(child) || attempt > 100) throw new Error(`HAProxy did not listen on ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { both: `http://127.0.0.1:${bothPort}`, first: `http://127.0.0.1:${firstPort}`, child };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// ---- 1. The list under load ----

interface LoadCase {
  name: string;
  baseUrl: string;
  cookie: string;
}

interface LoadPass {
  perSecond: number;
  p50: number;
  p99: number;
  healthzP99: number;
  cores: Record<string, number>;
  servedBy: Record<string, number>;
}

/**
 * Every case runs once unmeasured, then passCount passes of passSeconds each, the passes walking the
 * cases forwards, then backwards, so that drift and noise hit every case alike.
 */
async function loadCases(cases: LoadCase[], cpuGroups: CpuGroups): Promise<Map<LoadCase, LoadPass[]>> {
  const loads = new Map(cases.map((c) => [c, new HttpLoad(c.baseUrl, clients, { cookie: c.cookie })]));
  const passes = new Map(cases.map((c): [LoadCase, LoadPass[]] => [c, []]));
  try {
    for (const c of cases) await loads.get(c)!.run(firstPage, '/healthz', warmupSeconds, probeEveryMs);
    for (let pass = 0; pass < passCount; pass++) {
      for (const c of pass % 2 === 0 ? cases : [...cases].reverse()) {
        const before = cpuSample(cpuGroups);
        const started = performance.now();
        const run = await loads.get(c)!.run(firstPage, '/healthz', passSeconds, probeEveryMs);
        const cores = coresUsed(before, cpuSample(cpuGroups), (performance.now() - started) / 1000);
        passes.get(c)!.push({
          perSecond: run.perSecond,
          p50: percentile(run.latencies, 50),
          p99: percentile(run.latencies, 99),
          healthzP99: percentile(run.probes, 99),
          cores,
          servedBy: run.servedBy,
        });
      }
    }
  } finally {
    for (const load of loads.values()) load.close();
  }
  return passes;
}

// ---- 2. The list alone, beside /healthz ----

/** Sequential pairs of GET list and GET /healthz on one connection, which goes first alternating. */
async function listBesideHealthz(server: Server, cookie: string): Promise<{ list: number[]; healthz: number[]; total: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const list: number[] = [];
  const healthz: number[] = [];
  try {
    const listOnce = async () => (await get(agent, server.baseUrl + firstPage, { cookie })).ms;
    const healthzOnce = async () => (await get(agent, `${server.baseUrl}/healthz`)).ms;
    for (let i = 0; i < warmupPairs; i++) {
      await listOnce();
      await healthzOnce();
    }
    for (let pass = 0; pass < passCount; pass++) {
      for (let i = 0; i < pairsPerPass; i++) {
        if (i % 2 === 0) {
          list.push(await listOnce());
          healthz.push(await healthzOnce());
        } else {
          healthz.push(await healthzOnce());
          list.push(await listOnce());
        }
      }
    }
  } finally {
    agent.destroy();
  }
  const page = (await (await fetch(server.baseUrl + firstPage, { headers: { cookie } })).json()) as { total: number };
  return { list, healthz, total: page.total };
}

// ---- 3. Hub delivery within and across servers ----

interface Deliveries {
  same: number[];
  cross: number[];
  lost: number;
}

/**
 * A browser-like client (@microsoft/signalr over WebSockets, cookie and Origin) on each server; each
 * event is a POST /debug broadcast to one server, the two servers taking turns, so that every event
 * gives one same-server and one cross-server delivery, each timed from the request's start to the
 * client's handler. One event at a time, the next once both clients have it.
 */
async function hubDeliveries(servers: [Server, Server], cookie: string): Promise<Deliveries> {
  const connections: HubConnection[] = [];
  const awaited = new Map<string, (client: number, at: number) => void>();
  const result: Deliveries = { same: [], cross: [], lost: 0 };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (const [index, server] of servers.entries()) {
      const connection = new HubConnectionBuilder()
        .withUrl(server.baseUrl + hubPath, {
          skipNegotiation: true,
          transport: HttpTransportType.WebSockets,
          headers: { Cookie: cookie, Origin: origin },
        })
        .configureLogging(LogLevel.None)
        .build();
      connection.on('DebugMessage', (payload: DebugMessagePayload) => awaited.get(payload.text)?.(index, performance.now()));
      connections.push(connection);
      await connection.start();
    }
    for (let seq = 0; seq < warmupEvents + hubEvents; seq++) {
      const publisher = seq % 2;
      const text = `scale ${seq}`;
      const arrivals: (number | null)[] = [null, null];
      const delivered = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deliveryTimeoutMs);
        awaited.set(text, (client, at) => {
          arrivals[client] ??= at;
          if (arrivals.every((a) => a !== null)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const sentAt = performance.now();
      await Promise.all([broadcast(agent, servers[publisher], cookie, text), delivered]);
      awaited.delete(text);
      if (seq < warmupEvents) continue;
      const [same, cross] = [arrivals[publisher], arrivals[1 - publisher]];
      result.lost += Number(same === null) + Number(cross === null);
      if (same !== null) result.same.push(same - sentAt);
      if (cross !== null) result.cross.push(cross - sentAt);
    }
  } finally {
    await Promise.all(connections.map((c) => c.stop().catch(() => undefined)));
    agent.destroy();
  }
  return result;
}

/** POST /debug {action: broadcast, to: all} as an admin's console sends it. */
function broadcast(agent: http.Agent, server: Server, cookie: string, text: string): Promise<void> {
  const body = JSON.stringify({ action: 'broadcast', event: 'DebugMessage', payload: { text }, to: 'all' });
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${server.baseUrl}/debug`,
      { method: 'POST', agent, headers: { cookie, origin, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        let answer = '';
        response.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        response.on('end', () => (response.statusCode === 202 ? resolve() : reject(new Error(`POST /debug: ${response.statusCode} ${answer}`))));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

// ---- Printing ----

const ms = (n: number) => n.toFixed(2);
const times = (n: number) => `${n.toFixed(2)}×`;
const verdict = (met: boolean) => (met ? '✓' : '✗');

async function main() {
  // Bounded whatever happens: a stuck request must not keep the bench, its servers and its store alive.
  const limitSeconds = quick ? 300 : 900;
  setTimeout(() => {
    console.error(`bench/scale: gave up after ${limitSeconds} s`);
    process.exit(1);
  }, limitSeconds * 1000).unref();

  const started = performance.now();
  const loadAtStart = loadAverage();
  console.log(
    `Warden on SQLite and on PostgreSQL 15 (the test suites' throwaway server: fsync off), each server a node process of its own ` +
      `(supervision off, rows only), over loopback HTTP. ${os.cpus().length} CPUs: servers, PostgreSQL, HAProxy and this ` +
      'process (the clients) all share them.\n' +
      `1. GET ${firstPage} (the admin's first page, sorted by name) over ${whole(fleetSize)} instances (${groupCount} groups): ` +
      `${clients} clients on keep-alive connections, each sending its next request when the last answer is read, ` +
      `${passSeconds} s a pass after ${warmupSeconds} s unmeasured; ${passCount} passes walking the cases forwards, then backwards. ` +
      `Meanwhile one GET /healthz every ${probeEveryMs} ms on a connection of its own. Two servers: HAProxy 2.6, mode http, ` +
      'balance roundrobin, one thread. Figures are medians over the passes; ratios the median of per-pass ratios; ' +
      'cores = CPU seconds / wall seconds of each group of processes during the pass (machine: every process of the ' +
      'machine, ours or not); CPU ms/req = the CPU time of servers, PostgreSQL and HAProxy per answer.\n' +
      `2. The same list alone over ${whole(fleetSize)} instances on each store and over ${whole(bigFleetSize)} on PostgreSQL: ` +
      `one request at a time on one connection, each paired with a GET /healthz (which goes first alternating), ` +
      `${warmupPairs} pairs unmeasured, then ${passCount} × ${pairsPerPass}.\n` +
      `3. Hub: a @microsoft/signalr client (WebSockets, session cookie, Origin) on each of two servers on one PostgreSQL store; ` +
      `${hubEvents} POST /debug broadcasts taking turns between the servers, one at a time (${warmupEvents} unmeasured first); ` +
      'latency = request sent → the client handler runs, ms.\n' +
      `4. Hosts, in this process on a PostgreSQL store: an agent restarted over ${adoptCount} running instances of its host ` +
      `(engines that answer at once, so the engines' own probes are not counted), build → ready, ${adoptRounds} restarts; and an ` +
      `agent stopped at a random moment between heartbeats while a server watches, stop → "lost" announced, ${lostRounds} rounds.\n` +
      `Latency = request sent → body read, ms. Load average (1/5/15 min) at start: ${loadAtStart} on ${os.cpus().length} CPUs.\n`,
  );

  const work = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-scale-'));
  tempDirs.push(work);
  const servers: Server[] = [];
  const notes: string[] = [];
  const summary = [['measure', 'figure', 'target', '✓/✗']];
  try {
    // ---- Stores and servers ----
    let phase = performance.now();
    storeServer = await startStoreServer();
    const store = storeServer;
    const sqliteDir = path.join(work, 'sqlite');
    const sqliteCookie = await seedStore(openDb({ dataDir: sqliteDir }), fleetSize);
    const fleetUrl = await storeDatabase(store, 'scale_fleet');
    const pgCookie = await seedStore(openPostgresStore(fleetUrl, 2), fleetSize);
    const bigUrl = await storeDatabase(store, 'scale_big');
    const bigCookie = await seedStore(openPostgresStore(bigUrl, 2), bigFleetSize);
    console.log(
      `PostgreSQL started; ${whole(fleetSize)} instances seeded in SQLite and in PostgreSQL, ${whole(bigFleetSize)} in a second ` +
        `PostgreSQL database, in ${((performance.now() - phase) / 1000).toFixed(1)} s`,
    );

    phase = performance.now();
    const [sqliteServer, first, second, big] = await Promise.all([
      startServer('sqlite', sqliteDir),
      startServer('a', path.join(work, 'a'), fleetUrl),
      startServer('b', path.join(work, 'b'), fleetUrl),
      startServer('big', path.join(work, 'big'), bigUrl),
    ]);
    servers.push(sqliteServer, first, second, big);
    const proxy = await startProxy(work, first, second);
    console.log(`4 servers and HAProxy listening in ${((performance.now() - phase) / 1000).toFixed(1)} s\n`);
    const postmaster = Number(readFileSync(path.join(store.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const cpuGroups: CpuGroups = {
      servers: { pids: servers.map((s) => s.child.pid!) },
      postgres: { pids: [postmaster], children: true },
      haproxy: { pids: [proxy.child.pid!] },
      bench: { pids: [process.pid] },
    };

    // ---- 1. The list under load ----
    const sqliteCase = { name: 'SQLite, one server', baseUrl: sqliteServer.baseUrl, cookie: sqliteCookie };
    const pgCase = { name: 'PostgreSQL, one server', baseUrl: first.baseUrl, cookie: pgCookie };
    const proxiedCase = { name: 'PostgreSQL, one server via HAProxy', baseUrl: proxy.first, cookie: pgCookie };
    const twoCase = { name: 'PostgreSQL, two servers via HAProxy', baseUrl: proxy.both, cookie: pgCookie };
    const cases = [sqliteCase, pgCase, proxiedCase, twoCase];
    console.log(`1. measuring ${cases.length} cases under load…`);
    const passes = await loadCases(cases, cpuGroups);
    const groups = ['servers', 'postgres', 'haproxy', 'bench', 'machine'];
    // What one answer costs the servers, the store and the proxy, whoever else shares the cores.
    const cpuPerRequest = (p: LoadPass) => ((p.cores.servers + p.cores.postgres + p.cores.haproxy) * 1000) / p.perSecond;
    const rows = [['case', 'req/s', 'p50 ms', 'p99 ms', 'healthz p99', 'CPU ms/req', ...groups.map((g, i) => (i === 0 ? `cores: ${g}` : g))]];
    for (const c of cases) {
      const of = (figure: (p: LoadPass) => number) => median(passes.get(c)!.map(figure));
      rows.push([
        c.name,
        whole(of((p) => p.perSecond)),
        ms(of((p) => p.p50)),
        ms(of((p) => p.p99)),
        ms(of((p) => p.healthzP99)),
        ms(of(cpuPerRequest)),
        ...groups.map((g) => of((p) => p.cores[g]).toFixed(2)),
      ]);
    }
    console.log(`${table(rows)}\n`);

    const paired = (a: LoadCase, b: LoadCase, figure: (p: LoadPass) => number) =>
      passes.get(a)!.map((pass, i) => figure(pass) / figure(passes.get(b)!.at(i)!));
    const scaling = paired(twoCase, pgCase, (p) => p.perSecond);
    const scalingProxied = paired(twoCase, proxiedCase, (p) => p.perSecond);
    const pgOverSqlite = paired(pgCase, sqliteCase, (p) => p.p99);
    const split = passes.get(twoCase)!.reduce<Record<string, number>>((sum, p) => {
      for (const [by, n] of Object.entries(p.servedBy)) sum[by] = (sum[by] ?? 0) + n;
      return sum;
    }, {});
    const splitTotal = Object.values(split).reduce((a, b) => a + b, 0);
    notes.push(
      `req/s, two servers ÷ one (direct) per pass: ${scaling.map(times).join(', ')}; ÷ one via HAProxy: ${scalingProxied.map(times).join(', ')}`,
      `p99, PostgreSQL ÷ SQLite (one server) per pass: ${pgOverSqlite.map(times).join(', ')}`,
      `two servers' answers by server: ${Object.entries(split).map(([by, n]) => `${by} ${((n / splitTotal) * 100).toFixed(1)} %`).join(', ')}`,
    );
    summary.push(
      ['GET /instances req/s, two servers ÷ one (PostgreSQL)', times(median(scaling)), '—', '—'],
      ['GET /instances req/s, two servers ÷ one via HAProxy', times(median(scalingProxied)), '—', '—'],
      ['GET /instances p99 under load, PostgreSQL ÷ SQLite', times(median(pgOverSqlite)), '≤ 1.50×', verdict(median(pgOverSqlite) <= 1.5)],
    );

    // ---- 2. The list alone, beside /healthz ----
    console.log(`2. GET /instances beside GET /healthz, one request at a time…`);
    const sequential = [
      { name: 'SQLite', server: sqliteServer, cookie: sqliteCookie },
      { name: 'PostgreSQL', server: first, cookie: pgCookie },
      { name: 'PostgreSQL', server: big, cookie: bigCookie },
    ];
    const alone = [];
    for (const c of sequential) alone.push({ ...c, ...(await listBesideHealthz(c.server, c.cookie)) });
    const aloneRows = [['store', 'instances', 'n', 'list p50 ms', 'p99 ms', 'healthz p50 ms', 'p99 ms', 'p99 ÷ healthz p99']];
    for (const { name, total, list, healthz } of alone) {
      const [l50, l99, h50, h99] = [percentile(list, 50), percentile(list, 99), percentile(healthz, 50), percentile(healthz, 99)];
      aloneRows.push([name, whole(total), String(list.length), ms(l50), ms(l99), ms(h50), ms(h99), times(l99 / h99)]);
    }
    console.log(`${table(aloneRows)}\n`);
    const [sqliteAlone, pgAlone, bigAlone] = alone;
    const listP99 = percentile(bigAlone.list, 99);
    const healthzP99 = percentile(bigAlone.healthz, 99);
    summary.push(
      [
        `GET /instances p99 alone, PostgreSQL ÷ SQLite (${whole(fleetSize)})`,
        times(percentile(pgAlone.list, 99) / percentile(sqliteAlone.list, 99)),
        '—',
        '—',
      ],
      [
        `list p99 at ${whole(bigAlone.total)} instances ÷ healthz p99 (PostgreSQL)`,
        `${times(listP99 / healthzP99)} (${ms(listP99)} / ${ms(healthzP99)} ms)`,
        '≤ 3.00×',
        verdict(listP99 / healthzP99 <= 3),
      ],
    );

    // ---- 3. Hub delivery ----
    console.log('3. hub delivery, same server and across servers…');
    const hub = await hubDeliveries([first, second], pgCookie);
    const hubRows = [['delivery', 'n', 'p50 ms', 'p99 ms', 'max ms']];
    for (const [name, samples] of [['same server', hub.same], ['across servers', hub.cross]] as const) {
      hubRows.push([name, String(samples.length), ms(percentile(samples, 50)), ms(percentile(samples, 99)), ms(Math.max(...samples))]);
    }
    console.log(`${table(hubRows)}\n`);
    const crossP99 = percentile(hub.cross, 99);
    summary.push(
      ['hub delivery p99, across servers', `${ms(crossP99)} ms`, '≤ 50 ms', verdict(crossP99 <= 50)],
      ['hub delivery p99, same server', `${ms(percentile(hub.same, 99))} ms`, '—', '—'],
      ['hub deliveries lost', String(hub.lost), '0', verdict(hub.lost === 0)],
    );
    if (hub.lost > 0) process.exitCode = 1;

    // ---- 4. Hosts ----
    console.log(`4. hosts: an agent adopting ${adoptCount} instances after a restart, and a lost host found…`);
    const adoption = await adoptionTimes(await storeDatabase(store, 'scale_hosts'), adoptCount, adoptRounds);
    const lost = await lostDetectionTimes(await storeDatabase(store, 'scale_lost'), hostDefaults.heartbeatMs, lostRounds);
    const hostRows = [
      ['measure', 'n', 'median', 'max'],
      [`agent restart → ${adoptCount} instances adopted (ready), s`, String(adoption.ms.length), (median(adoption.ms) / 1000).toFixed(2), (Math.max(...adoption.ms) / 1000).toFixed(2)],
      [`agent gone → host lost (heartbeat ${hostDefaults.heartbeatMs / 1000} s), s`, String(lost.length), (median(lost) / 1000).toFixed(2), (Math.max(...lost) / 1000).toFixed(2)],
    ];
    console.log(`${table(hostRows)}\n`);
    notes.push(`instances started again by the adopting agent: ${adoption.restarted} (adoption never restarts a running instance)`);
    summary.push(
      [`time to adopt ${adoptCount} instances after an agent restart`, `${(median(adoption.ms) / 1000).toFixed(2)} s`, '—', '—'],
      ['lost host detected (worst of the rounds)', `${(Math.max(...lost) / 1000).toFixed(2)} s`, '≤ 15 s', verdict(Math.max(...lost) <= 15_000)],
    );
  } finally {
    for (const child of children) await stopChild(child);
    killEverything();
  }
  console.log(`${table(summary)}\n`);
  console.log(
    `${notes.join('\n')}\nLoad average (1/5/15 min) at start: ${loadAtStart}; at end: ${loadAverage()}; ${os.cpus().length} CPUs\n` +
      `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
