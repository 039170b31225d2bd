import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { metricResolutions } from '../contracts/statistics';
import { buildApp } from '../server/app';
import { startCookieSession } from '../server/auth/sessions';
import { systemClock } from '../server/clock';
import { allInstanceRows, insertInstance } from '../server/db/instances';
import { insertSamples, seriesIdOf } from '../server/db/metrics';
import { migrateToLatest } from '../server/db/migrations';
import { openDb } from '../server/db/open';
import type { Db } from '../server/db/schema';
import { createUser } from '../server/db/users';
import { removeInstanceUser } from '../server/engines/instanceUsers';
import { sessionCookieName } from '../server/http/sessionCookie';
import { maintainMetrics } from '../server/metrics/retention';
import { encodeValues, type MetricValues } from '../server/metrics/series';
import { benchConfig } from './lib/benchConfig';
import { nowMs } from './lib/monotonicClock';
import { percentile } from './lib/figures';

// `npm run bench -- metrics [--quick]`: (1) the control plane's CPU while sampling running etcd
// instances every 10 s (METRICS_BENCH_INSTANCES, default 50; METRICS_BENCH_SECONDS, default 60), as
// percent of one core from process.cpuUsage; (2) store growth per instance per day: two simulated
// days of 10 s samples of pg instances through the real rollup and trim code into a fresh store
// file; (3) p95 of GET /instances/{id}/metrics over 7 days. Targets: ≤ 5 %, ≤ 2 MB, ≤ 50 ms.

const quick = process.argv.includes('--quick');
const instanceCount = Number(process.env.METRICS_BENCH_INSTANCES ?? (quick ? 5 : 50));
const sampleSeconds = Number(process.env.METRICS_BENCH_SECONDS ?? (quick ? 20 : 60));
const intervalMs = 10_000;
const simulatedInstances = quick ? 3 : 10;
const queryRuns = quick ? 50 : 200;
const password = 'Bench-Password-7';
const instancePorts = '17500-17699';

const minute = 60_000;
const day = 86_400_000;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** A pg instance's figures wandering a little from sample to sample, as real ones do. */
function pgValues(i: number): MetricValues {
  const wave = Math.sin(i / 50);
  return {
    connections_active: 2 + (i % 3),
    connections_idle: 5 + (i % 4),
    connections_idle_in_tx: i % 2,
    connections_total: 8 + (i % 5),
    max_connections: 100,
    tps: 120 + 40 * wave + (i % 7) * 1.37,
    cache_hit_ratio: 0.99 - 0.005 * Math.abs(wave),
    database_bytes: 52_428_800 + i * 1024,
    temp_bytes: (i % 11) * 812.5,
    deadlocks: 0,
    longest_tx_seconds: 0.25 * (i % 13),
    wal_bytes_per_s: 40_000 + 3_000 * wave,
    cpu_percent: 3 + Math.abs(wave) * 4.321,
    rss_bytes: 180_000_000 + (i % 17) * 4096,
    data_dir_bytes: 90_000_000 + Math.floor(i / 6) * 4096,
  };
}

async function storeBytes(db: Db): Promise<number> {
  const { sql } = await import('kysely');
  await sql`pragma wal_checkpoint(truncate)`.execute(db);
  const pages = await sql<{ page_count: number }>`pragma page_count`.execute(db);
  const freelist = await sql<{ freelist_count: number }>`pragma freelist_count`.execute(db);
  const size = await sql<{ page_size: number }>`pragma page_size`.execute(db);
  return (pages.rows[0].page_count - freelist.rows[0].freelist_count) * size.rows[0].page_size;
}

function instanceRow(index: number, created: number) {
  return {
    id: randomUUID(), name: `bench-pg-${index}`, type: 'pg' as const, status: 'running' as const, desired_state: 'running' as const,
    status_reason: null, health_level: 'good' as const, health_checks: '[]', group_id: null, engine_version: '15.8',
    port: 30_000 + index, peer_port: null, description: '', created_at: new Date(created).toISOString(), created_by: null,
    last_backup_at: null, operation_kind: null, operation_started_at: null,
  };
}

/** (2) Two days of samples of several instances, rolled up and trimmed as the collector does once a minute. */
async function storeGrowth(dataDir: string, start: number) {
  const db = openDb({ dataDir });
  await migrateToLatest(db);
  const series: number[] = [];
  for (let i = 0; i < simulatedInstances; i++) {
    const row = instanceRow(i, start);
    await insertInstance(db, row);
    series.push(await seriesIdOf(db, row.id));
  }
  const empty = await storeBytes(db);
  const perDay: number[] = [];
  let previous = empty;
  const rawStep = metricResolutions[0].stepMs;
  for (let dayIndex = 0; dayIndex < 2; dayIndex++) {
    for (let at = start + dayIndex * day; at < start + (dayIndex + 1) * day; at += rawStep) {
      const i = (at - start) / rawStep;
      await insertSamples(db, series.map((seriesId) => ({ seriesId, resolution: 0, at, data: encodeValues(pgValues(i + seriesId)) })));
      if ((at + rawStep) % minute === 0) await maintainMetrics(db, at + rawStep);
    }
    const bytes = await storeBytes(db);
    perDay.push((bytes - previous) / simulatedInstances);
    previous = bytes;
  }
  const rows = await db
    .selectFrom('metric_samples')
    .select(['resolution', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('resolution')
    .execute();
  await db.destroy();
  return { perDay, rows };
}

/** (3) 7 days of an instance's series at every resolution, then the 7-day query over HTTP. */
async function weekQuery(dataDir: string) {
  const config = benchConfig(dataDir, { WARDEN_INSTANCE_PORTS: instancePorts });
  const now = Date.now();
  const db = openDb({ dataDir });
  await migrateToLatest(db);
  const row = instanceRow(999, now - 8 * day);
  await insertInstance(db, row);
  const seriesId = await seriesIdOf(db, row.id);
  const fill = async (resolution: number, from: number) => {
    const { stepMs } = metricResolutions[resolution];
    const rows = [];
    for (let at = Math.floor(from / stepMs) * stepMs; at < now; at += stepMs) rows.push({ seriesId, resolution, at, data: encodeValues(pgValues(at / stepMs)) });
    for (let i = 0; i < rows.length; i += 500) await insertSamples(db, rows.slice(i, i + 500));
  };
  await fill(2, now - 8 * day);
  await fill(1, now - 8 * day);
  await fill(0, now - day);
  const app = buildApp(config, { db, logger: false, supervise: false });
  await app.ready();
  const admin = await createUser(db, { email: 'bench@example.com', password, role: 'admin' });
  const { token } = await startCookieSession({ db, clock: systemClock }, admin.id, false, { ip: null, userAgent: null });
  const url = `/instances/${row.id}/metrics?from=${new Date(now - 7 * day).toISOString()}&to=${new Date(now).toISOString()}`;
  const timed = async (target: string) => {
    const times: number[] = [];
    let body = '';
    for (let i = 0; i < queryRuns; i++) {
      const begun = nowMs();
      const res = await app.inject({ method: 'GET', url: target, headers: { cookie: `${sessionCookieName}=${token}` } });
      times.push(nowMs() - begun);
      if (res.statusCode !== 200) throw new Error(`GET ${target} answered ${res.statusCode}: ${res.body}`);
      body = res.body;
    }
    return { p50: percentile(times, 50), p95: percentile(times, 95), body };
  };
  // The same server's answer for one instance, alternated runs apart: what any call costs here and now.
  const baseline = await timed(`/instances/${row.id}`);
  const week = await timed(url);
  await app.close();
  await db.destroy();
  const points = (JSON.parse(week.body) as { series: { points: unknown[] }[] }).series[0].points.length;
  return { p50: week.p50, p95: week.p95, points, bytes: week.body.length, baseline };
}

/** (1) Real etcd instances, sampled every 10 s for a while; CPU of this process meanwhile. */
async function samplingCpu(dataDir: string) {
  const config = benchConfig(dataDir, { WARDEN_INSTANCE_PORTS: instancePorts });
  const db = openDb({ dataDir });
  const app = buildApp(config, { db, logger: false, supervise: false });
  await app.ready();
  try {
    console.log(`starting ${instanceCount} etcd instances…`);
    for (let i = 0; i < instanceCount; i++) await app.instances.create({ name: `bench-kv-${i}`, type: 'etcd', groupId: null, description: '', parameters: {} }, null, true);
    await app.instances.idle();
    const running = (await allInstanceRows(db)).filter((row) => row.status === 'running').length;
    if (running < instanceCount) throw new Error(`only ${running} of ${instanceCount} instances are running`);
    // Two rounds first: connections and rates warm up, the data folders are walked once.
    await app.metrics.sampleOnce();
    await app.metrics.sampleOnce();
    const cpuBefore = process.cpuUsage();
    const begun = nowMs();
    let rounds = 0;
    while (nowMs() - begun < sampleSeconds * 1000) {
      const roundStart = nowMs();
      await app.metrics.sampleOnce();
      if (rounds % 6 === 5) await app.metrics.maintain();
      rounds += 1;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (nowMs() - roundStart))));
    }
    const used = process.cpuUsage(cpuBefore);
    const elapsedMs = nowMs() - begun;
    return { percent: ((used.user + used.system) / 1000 / elapsedMs) * 100, rounds, elapsedMs };
  } finally {
    for (const row of await allInstanceRows(db)) {
      await app.instances.engine(row.type).stop(app.instances.runtime(row)).catch(() => undefined);
      removeInstanceUser(row.id);
    }
    await app.close();
    await db.destroy();
  }
}

async function main() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-metrics-'));
  chmodSync(root, 0o711);
  try {
    const growth = await storeGrowth(path.join(root, 'growth'), Date.UTC(2030, 0, 1));
    console.log(
      `store growth per instance: day 1 ${fmt(growth.perDay[0] / 1e6, 2)} MB (raw samples fill their 24 h), ` +
        `day 2 ${fmt(growth.perDay[1] / 1e6, 2)} MB (steady state: minutes and hours only) — target ≤ 2 MB/day`,
    );
    console.log(`  rows after two days (${simulatedInstances} instances): ${growth.rows.map((r) => `resolution ${r.resolution}: ${r.n}`).join(', ')}`);
    const query = await weekQuery(path.join(root, 'query'));
    console.log(
      `7-day metrics query over HTTP: p50 ${fmt(query.p50, 2)} ms, p95 ${fmt(query.p95, 2)} ms (${query.points} points a series, ` +
        `${fmt(query.bytes / 1000, 0)} kB, ${queryRuns} runs) — target p95 ≤ 50 ms; GET /instances/{id} meanwhile: p50 ${fmt(query.baseline.p50, 2)} ms, p95 ${fmt(query.baseline.p95, 2)} ms`,
    );
    const cpu = await samplingCpu(path.join(root, 'cpu'));
    console.log(
      `sampling ${instanceCount} running etcd instances every ${intervalMs / 1000} s: ${fmt(cpu.percent, 2)} % of one core ` +
        `(${cpu.rounds} rounds over ${fmt(cpu.elapsedMs / 1000, 0)} s) — target ≤ 5 %`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
