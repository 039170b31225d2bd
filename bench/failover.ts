import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { clusterPresets, worstCaseFailoverSeconds, type ClusterHistoryEntry } from '../contracts/clusters';
import type { Instance, InstanceMember, OperationCompletedPayload } from '../contracts/instances';
import { buildApp } from '../server/app';
import { allInstanceRows, findInstanceRow } from '../server/db/instances';
import { openDb } from '../server/db/open';
import type { InstanceRuntime } from '../server/engines/engine';
import { removeInstanceUser } from '../server/engines/instanceUsers';
import { pgSuperuserPassword } from '../server/engines/pg';
import { memberPostmasterPid } from '../server/engines/pgCluster';
import { isAlive } from '../server/engines/processRunner';
import { InProcessBus } from '../server/hub/bus';
import { adminApi } from './lib/adminApi';
import { benchConfig } from './lib/benchConfig';
import { loadAverage, median, table, whole } from './lib/figures';
import { recordPublished } from './lib/publishedEvents';

// `npm run bench -- failover [--quick] [--trials=N]`: a 3-member PostgreSQL cluster on Patroni 3.0 with
// HAProxy, its consensus in a 3-member Warden etcd, all created through Warden's API. Over N trials
// each: seconds from SIGKILL of the leader's postgres (Patroni alive), and of its postgres and Patroni
// together (a lost host), to the first write that succeeds through the read-write address; write
// downtime of a switchover; acknowledged commits lost in a lost host with synchronous mode on and off;
// write throughput through HAProxy beside straight to the leader; and seconds to a new etcd raft
// leader after its leader member is killed.

const quick = process.argv.includes('--quick');
const trialsArg = process.argv.find((a) => a.startsWith('--trials='));
const trials = trialsArg ? Number(trialsArg.slice('--trials='.length)) : quick ? 1 : 5;
const throughputSeconds = quick ? 3 : 8;
const throughputClients = 4;
/** Away from the server tests' 16400+ and the other benches' 17400–17599. */
const instancePorts = '17600-17699';
const postgresBin = '/usr/lib/postgresql/15/bin/postgres';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const s = (ms: number) => (ms / 1000).toFixed(2);

/** A superuser session through an address; statements end after 2 s, so a write waiting on a lost standby counts as failed. */
async function session(port: number, password: string): Promise<Client> {
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres', connectionTimeoutMillis: 1000, query_timeout: 2000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * Writes numbered rows through one address as fast as one session goes, reconnecting after every
 * failure, and keeps which ids PostgreSQL acknowledged and when each write succeeded.
 */
function writer(port: number, password: string, table: string) {
  const acknowledged: number[] = [];
  const successes: number[] = [];
  const failures: number[] = [];
  let running = true;
  // Ids no earlier writer into the same table used: a trial's writes start above the last trial's.
  let next = Date.now() * 1000;
  const done = (async () => {
    let client: Client | null = null;
    while (running) {
      try {
        client ??= await session(port, password);
        const id = next++;
        await client.query(`insert into ${table}(id) values ($1)`, [id]);
        acknowledged.push(id);
        successes.push(performance.now());
      } catch {
        failures.push(performance.now());
        await client?.end().catch(() => undefined);
        client = null;
        await sleep(20);
      }
    }
    await client?.end().catch(() => undefined);
  })();
  return {
    acknowledged,
    successes,
    /**
     * Ms from `at` to the first success after the first failure that followed it: a write answered
     * just after the kill had been answered before it, and a session of a killed postmaster may live on
     * a moment, so writable again means after writes failed.
     */
    firstAfter: async (at: number, withinMs: number) => {
      for (const deadline = performance.now() + withinMs; performance.now() < deadline; await sleep(10)) {
        const failed = failures.find((t) => t > at);
        const hit = failed === undefined ? undefined : successes.find((t) => t > failed);
        if (hit !== undefined) return hit - at;
      }
      throw new Error(`no write succeeded within ${withinMs / 1000} s`);
    },
    /** The longest gap between successes in [from, to]. */
    longestGap: (from: number, to: number) => {
      const inside = [from, ...successes.filter((t) => t > from && t < to), to];
      return Math.max(...inside.slice(1).map((t, i) => t - inside[i]));
    },
    stop: async () => {
      running = false;
      await done;
    },
  };
}

async function main() {
  const started = performance.now();
  const loadAtStart = loadAverage();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-failover-'));
  chmodSync(dataDir, 0o711);
  // No probes of its own: a lost member would be started again within seconds and take its lock back,
  // which a lost host cannot. The bench probes (and so lets supervision work) only between trials.
  const config = benchConfig(dataDir, { WARDEN_INSTANCE_PORTS: instancePorts, WARDEN_PITR: 'off', WARDEN_PROBE_INTERVAL_MS: '3600000' });
  const origin = new URL(config.publicUrl).origin;
  const db = openDb(config);
  const bus = new InProcessBus();
  const { whenPublished } = recordPublished(bus);
  const app = buildApp(config, { db, bus, logger: false });
  const fast = clusterPresets.fast;
  console.log(
    `Failover of a 3-member PostgreSQL 15 cluster on Patroni with HAProxy, its leader lock in a 3-member etcd 3.4, all made through Warden; ` +
      `timing preset "fast" (ttl ${fast.ttl} s, loop_wait ${fast.loopWait} s, retry_timeout ${fast.retryTimeout} s, HAProxy checks every ${fast.checkIntervalMs} ms, ` +
      `down after ${fast.checkFall}; worst case for a lost host ${worstCaseFailoverSeconds(fast)} s). ${trials} trial(s) each.\n` +
      `Load average (1/5/15 min) at start: ${loadAtStart} on ${os.cpus().length} CPUs.\n`,
  );

  try {
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const api = await adminApi(db, baseUrl, origin);
    const created = async (body: object) => {
      const accepted = await api<Instance>('POST', '/instances', body);
      const { payload } = await whenPublished<OperationCompletedPayload>('OperationCompleted', (p) => p.instanceId === accepted.id && p.kind === 'create', 5 * 60_000);
      if (!payload.ok) throw new Error(`creating ${accepted.name} failed: ${payload.error}`);
      return api<Instance>('GET', `/instances/${accepted.id}`);
    };
    const runtimeOf = async (id: string): Promise<InstanceRuntime> => app.instances.runtime((await findInstanceRow(db, id))!);
    const members = (id: string) => api<InstanceMember[]>('GET', `/instances/${id}/members`);
    /** Until every member runs, one leads (and, in synchronous mode, one is the synchronous standby), letting supervision work. */
    const healed = async (id: string, synchronous: boolean) => {
      // The bench's kills are no crash loop: supervision's count of crashes starts again each trial.
      app.instances.forgetCrashes(id);
      for (const deadline = performance.now() + 180_000; ; await sleep(500)) {
        await app.instances.probeAll();
        await app.instances.idle();
        const listed = await members(id);
        const ok = listed.every((m) => m.state === 'running') && listed.some((m) => m.role === 'leader') && (!synchronous || listed.some((m) => m.role === 'sync_standby'));
        if (ok) return listed;
        if (performance.now() > deadline) throw new Error(`cluster did not heal: ${JSON.stringify(listed)}`);
      }
    };

    const store = await created({ name: 'bench-consensus', type: 'etcd', members: 3 });
    const clusters = {
      sync: await created({ name: 'bench-sync', type: 'pg', members: 3, dcsInstanceId: store.id, synchronous: true }),
      async: await created({ name: 'bench-async', type: 'pg', members: 3, dcsInstanceId: store.id }),
    };
    const passwords = { sync: pgSuperuserPassword(await runtimeOf(clusters.sync.id)), async: pgSuperuserPassword(await runtimeOf(clusters.async.id)) };
    const addresses = {
      sync: (await runtimeOf(clusters.sync.id)).cluster!.readWritePort,
      async: (await runtimeOf(clusters.async.id)).cluster!.readWritePort,
    };
    for (const kind of ['sync', 'async'] as const) {
      const client = await session(addresses[kind], passwords[kind]);
      await client.query('create table acks(id bigint primary key)');
      await client.query('create table load(id bigserial primary key, at timestamptz default now())');
      await client.end();
    }
    /** The history's length now, then what HAProxy's log measured for the leader change after it (the figure the cluster's page shows). */
    const historyLength = async (id: string) => (await api<ClusterHistoryEntry[]>('GET', `/instances/${id}/cluster/history`)).length;
    const measuredOutage = async (id: string, before: number): Promise<number | null> => {
      // Patroni records the new timeline on the new leader's next round.
      for (const deadline = performance.now() + 15_000; performance.now() < deadline; await sleep(250)) {
        const history = await api<ClusterHistoryEntry[]>('GET', `/instances/${id}/cluster/history`);
        if (history.length > before) return history.at(-1)!.writeOutageSeconds;
      }
      return null;
    };
    const seen = { hostLost: [] as number[], switchover: [] as number[], pairs: [] as string[] };
    const dirOf = (id: string) => path.join(dataDir, 'instances', id);
    const sandboxOf = (id: string, ordinal: number) => Number(readFileSync(path.join(dirOf(id), 'members', String(ordinal), 'sandbox.pid'), 'utf8'));

    // ---- The leader's postgres killed; Patroni starts it again (or fails over) ----
    const postgresKilled: number[] = [];
    for (let trial = 0; trial < trials; trial++) {
      const listed = await healed(clusters.async.id, false);
      const leader = listed.find((m) => m.role === 'leader')!;
      const write = writer(addresses.async, passwords.async, 'acks');
      await sleep(500);
      const pid = memberPostmasterPid(await runtimeOf(clusters.async.id), leader.ordinal, postgresBin)!;
      const at = performance.now();
      process.kill(pid, 'SIGKILL');
      postgresKilled.push(await write.firstAfter(at, 120_000));
      const after = (await members(clusters.async.id)).find((m) => m.role === 'leader');
      console.log(`  postgres killed (member ${leader.ordinal}, pid ${pid}): writable after ${s(postgresKilled.at(-1)!)} s, member ${after?.ordinal ?? '?'} leads`);
      await write.stop();
      await app.instances.idle();
    }

    // ---- A lost host: the leader's Patroni and postgres killed together, with synchronous mode on and off ----
    const hostLost = { sync: [] as number[], async: [] as number[] };
    const lost = { sync: [] as number[], async: [] as number[] };
    for (let trial = 0; trial < trials; trial++) {
      for (const kind of ['sync', 'async'] as const) {
        const id = clusters[kind].id;
        const listed = await healed(id, kind === 'sync');
        const leader = listed.find((m) => m.role === 'leader')!;
        const table = `acks_${kind}_${trial}`;
        const setup = await session(addresses[kind], passwords[kind]);
        await setup.query(`create table ${table}(id bigint primary key)`);
        await setup.end();
        const write = writer(addresses[kind], passwords[kind], table);
        await sleep(1000);
        const timelines = await historyLength(id);
        const at = performance.now();
        process.kill(sandboxOf(id, leader.ordinal), 'SIGKILL');
        const first = await write.firstAfter(at, 120_000);
        hostLost[kind].push(first);
        const proxySaw = await measuredOutage(id, timelines);
        if (proxySaw !== null) seen.hostLost.push(proxySaw);
        seen.pairs.push(`lost host ${kind}: writer ${s(first)} s, HAProxy's log ${proxySaw ?? '—'} s`);
        await sleep(500);
        await write.stop();
        const check = await session(addresses[kind], passwords[kind]);
        const present = new Set((await check.query<{ id: string }>(`select id from ${table}`)).rows.map((r) => Number(r.id)));
        await check.end();
        lost[kind].push(write.acknowledged.filter((ackId) => !present.has(ackId)).length);
        console.log(`  lost host, ${kind}: writable after ${s(first)} s, ${write.acknowledged.length} acknowledged, ${lost[kind].at(-1)} lost`);
      }
    }

    // ---- Switchover: write downtime from the request to the first write on the new leader ----
    const switchoverDown: number[] = [];
    const switchoverTotal: number[] = [];
    for (let trial = 0; trial < trials; trial++) {
      await healed(clusters.async.id, false);
      const write = writer(addresses.async, passwords.async, 'acks');
      await sleep(1000);
      const timelines = await historyLength(clusters.async.id);
      const at = performance.now();
      const accepted = await api<Instance>('POST', `/instances/${clusters.async.id}/cluster/switchover`, {});
      if (!accepted.operation) throw new Error('the switchover was not accepted');
      // This trial's completion, not an earlier trial's.
      const { payload, at: ended } = await whenPublished<OperationCompletedPayload>(
        'OperationCompleted',
        (p) => p.instanceId === clusters.async.id && p.kind === 'switchover',
        120_000,
        at,
      );
      if (!payload.ok) throw new Error(`switchover failed: ${payload.error}`);
      await sleep(1000);
      switchoverDown.push(write.longestGap(at, performance.now()));
      switchoverTotal.push(ended - at);
      const proxySaw = await measuredOutage(clusters.async.id, timelines);
      if (proxySaw !== null) seen.switchover.push(proxySaw);
      seen.pairs.push(`switchover: writer's longest gap ${s(switchoverDown.at(-1)!)} s, HAProxy's log ${proxySaw ?? '—'} s`);
      await write.stop();
    }

    // ---- Write throughput: through HAProxy beside straight to the leader, rounds alternating ----
    // On each cluster: asynchronous, where a commit waits for the leader's disk alone, and synchronous,
    // where it waits for a standby too.
    const throughput = { async: { proxy: [] as number[], direct: [] as number[] }, sync: { proxy: [] as number[], direct: [] as number[] } };
    for (const kind of ['async', 'sync'] as const) {
      const listed = await healed(clusters[kind].id, kind === 'sync');
      const leaderPort = listed.find((m) => m.role === 'leader')!.port;
      for (let round = 0; round < (quick ? 1 : 3); round++) {
        for (const [way, port] of [
          ['proxy', addresses[kind]],
          ['direct', leaderPort],
        ] as const) {
          const sessions = await Promise.all(Array.from({ length: throughputClients }, () => session(port, passwords[kind])));
          let count = 0;
          const until = performance.now() + throughputSeconds * 1000;
          await Promise.all(
            sessions.map(async (c) => {
              while (performance.now() < until) {
                await c.query('insert into load default values');
                count++;
              }
            }),
          );
          throughput[kind][way].push(count / throughputSeconds);
          await Promise.all(sessions.map((c) => c.end()));
        }
      }
    }

    // ---- etcd: a new raft leader after the leader member is killed ----
    const etcdElection: number[] = [];
    for (let trial = 0; trial < trials; trial++) {
      let before: InstanceMember[] = [];
      app.instances.forgetCrashes(store.id);
      for (const deadline = performance.now() + 120_000; ; await sleep(500)) {
        await app.instances.probeAll();
        await app.instances.idle();
        before = await members(store.id);
        if (before.every((m) => m.state === 'running') && before.some((m) => m.role === 'leader')) break;
        if (performance.now() > deadline) throw new Error('the etcd cluster did not heal');
      }
      const leader = before.find((m) => m.role === 'leader')!;
      const pidFile = leader.ordinal === 1 ? path.join(dirOf(store.id), 'etcd.pid') : path.join(dirOf(store.id), 'members', String(leader.ordinal), 'etcd.pid');
      const pid = Number(readFileSync(pidFile, 'utf8'));
      const rt = await runtimeOf(store.id);
      const at = performance.now();
      process.kill(pid, 'SIGKILL');
      for (;;) {
        const now = await app.instances.engine('etcd').members(rt);
        if (now.some((m) => m.role === 'leader' && m.ordinal !== leader.ordinal && m.state === 'running')) break;
        if (performance.now() - at > 60_000) throw new Error('no new etcd leader within 60 s');
        await sleep(20);
      }
      etcdElection.push(performance.now() - at);
      for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(20);
    }

    const med = (values: number[]) => (values.length ? s(median(values)) : '—');
    const range = (values: number[]) => (values.length ? `${s(Math.min(...values))}–${s(Math.max(...values))}` : '—');
    console.log(
      `\n${table([
        ['measure', 'median s', 'range s', 'target'],
        ["leader's postgres killed → writable (Patroni alive)", med(postgresKilled), range(postgresKilled), '≤ 10 s'],
        ['lost host (Patroni + postgres) → writable, synchronous', med(hostLost.sync), range(hostLost.sync), `≤ ${fast.ttl + 5} s`],
        ['lost host (Patroni + postgres) → writable, asynchronous', med(hostLost.async), range(hostLost.async), `≤ ${fast.ttl + 5} s`],
        ['switchover: longest write gap', med(switchoverDown), range(switchoverDown), '≤ 5 s'],
        ['switchover: request → operation complete', med(switchoverTotal), range(switchoverTotal), ''],
        ['etcd: leader member killed → new raft leader', med(etcdElection), range(etcdElection), '≤ 2 s'],
        [`lost host: HAProxy's log, no writer (cluster page; ${seen.hostLost.length} of ${trials * 2} measured)`, med(seen.hostLost.map((v) => v * 1000)), range(seen.hostLost.map((v) => v * 1000)), ''],
        [`switchover: HAProxy's log, no writer (${seen.switchover.length} of ${trials} measured)`, med(seen.switchover.map((v) => v * 1000)), range(seen.switchover.map((v) => v * 1000)), ''],
      ])}`,
    );
    console.log(`\nEach leader change, the writer's figure beside HAProxy's log:\n${seen.pairs.map((line) => `  ${line}`).join('\n')}`);
    const proxy = { async: median(throughput.async.proxy), sync: median(throughput.sync.proxy) };
    const direct = { async: median(throughput.async.direct), sync: median(throughput.sync.direct) };
    console.log(
      `\n${table([
        ['', 'synchronous', 'asynchronous'],
        ['acknowledged commits lost per lost host (each trial)', lost.sync.join(', '), lost.async.join(', ')],
      ])}`,
    );
    console.log(
      `\n${table([
        [`writes/s, ${throughputClients} sessions, ${throughputSeconds} s per round (median of rounds)`, 'asynchronous', 'synchronous'],
        ['through HAProxy (read-write address)', whole(proxy.async), whole(proxy.sync)],
        ['straight to the leader', whole(direct.async), whole(direct.sync)],
        ['HAProxy / direct', (proxy.async / direct.async).toFixed(3), (proxy.sync / direct.sync).toFixed(3)],
      ])}`,
    );
  } finally {
    await app.instances.idle();
    // The clusters before their consensus store, which Warden keeps while a cluster relies on it.
    const rows = (await allInstanceRows(db)).sort((a, b) => Number(a.type === 'etcd') - Number(b.type === 'etcd'));
    for (const row of rows) {
      await app.instances.delete(row.id, true).catch((error: unknown) => console.error(`deleting ${row.name}: ${String(error)}`));
      await app.instances.idle();
      await removeInstanceUser(row.id);
    }
    await app.close();
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\nLoad average (1/5/15 min) at start: ${loadAtStart}; at end: ${loadAverage()} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
