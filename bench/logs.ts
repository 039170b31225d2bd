import { mkdtempSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { buildApp } from '../server/app';
import { migrateToLatest } from '../server/db/migrations';
import { openDb, storeFileName } from '../server/db/open';
import { createUser } from '../server/db/users';
import { logLevels } from '../contracts/logLevels';
import { benchConfig } from './lib/benchConfig';
import { nowMs } from './lib/monotonicClock';
import { percentile } from './lib/figures';

// `npm run bench -- logs [--quick] [--entries=N]`: the log store at scale. Generates N entries
// (10,000,000 by default) across 100 instances over 30 days, then measures GET /logs/all for
// (a) the newest page, (b) level + instance, (c) a rare word, (d) an hour in the middle; the export
// of 1M entries (seconds, peak RSS growth); and ingestion through the log writer while queries
// run, checking that no entry is lost.

const quick = process.argv.includes('--quick');
const entriesArg = process.argv.find((arg) => arg.startsWith('--entries='));
const total = entriesArg ? Number(entriesArg.split('=')[1]) : quick ? 200_000 : 10_000_000;
const instanceCount = 100;
const spanMs = 30 * 86_400_000;
const end = Date.UTC(2030, 0, 31);
const start = end - spanMs;
const samples = quick ? 20 : 50;
const exportTarget = Math.min(1_000_000, total);
const ingestSeconds = quick ? 3 : 10;
const rareWord = 'zebrafish';
const password = 'Bench-Password-7';

const words = ['checkpoint', 'starting', 'connection', 'received', 'authorized', 'vacuum', 'autovacuum', 'relation', 'table', 'index', 'wal', 'segment', 'archive', 'replication', 'slot', 'lock', 'timeout', 'statement', 'duration', 'backup', 'restore', 'member', 'leader', 'election', 'compaction', 'snapshot', 'raft', 'heartbeat', 'client', 'query'];
const handlers = ['postgres', 'etcd', 'warden', 'backup'];
// Lowest first: most entries are information, few are fatal.
const levelWeights = [10, 20, 50, 12, 7, 1];
const levelTable = levelWeights.flatMap((weight, i) => Array<string>(weight).fill(logLevels[i]));

// mulberry32: the same data every run, in 32-bit integer arithmetic.
let seed = 42;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];

const instanceIds = Array.from({ length: instanceCount }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** Entries in time order, one transaction per batch (the store's triggers keep search and totals). */
function generate(file: string) {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  const insert = sqlite.prepare('INSERT INTO logs (timestamp, level, instance_id, handler, message, properties) VALUES (?, ?, ?, ?, ?, ?)');
  const batch = 20_000;
  const began = nowMs();
  for (let done = 0; done < total; done += batch) {
    const count = Math.min(batch, total - done);
    sqlite.transaction(() => {
      for (let i = 0; i < count; i++) {
        const n = done + i;
        const timestamp = new Date(start + Math.floor((n / total) * spanMs)).toISOString();
        const text = Array.from({ length: 6 }, () => pick(words));
        // One entry in 100,000 carries the rare word.
        if (n % 100_000 === 50_000) text.push(rareWord);
        const instanceId = random() < 0.05 ? null : pick(instanceIds);
        insert.run(timestamp, pick(levelTable), instanceId, pick(handlers), text.join(' '), JSON.stringify({ pid: 1000 + (n % 5000), seq: n }));
      }
    })();
    if ((done / batch) % 50 === 0) process.stdout.write(`\r  generated ${(done + count).toLocaleString()} / ${total.toLocaleString()}`);
  }
  const seconds = (nowMs() - began) / 1000;
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.exec('ANALYZE');
  sqlite.close();
  process.stdout.write('\n');
  return seconds;
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-logs-'));
  const config = benchConfig(dir, { WARDEN_LOG_RETENTION: '0' });
  const db = openDb(config);
  await migrateToLatest(db);
  await db.destroy();

  console.log(`Generating ${total.toLocaleString()} entries across ${instanceCount} instances over 30 days…`);
  const generateSeconds = generate(path.join(dir, storeFileName));
  const storeBytes = statSync(path.join(dir, storeFileName)).size;

  const store = openDb(config);
  const app = buildApp(config, { db: store, logger: false, supervise: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  await createUser(store, { email: 'bench@warden.local', password, role: 'admin' });
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@warden.local', password }) });
  const token = ((await login.json()) as { accessToken: string }).accessToken;
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

  const timed = async (url: string) => {
    const began = nowMs();
    const res = await fetch(`${base}${url}`, { headers });
    const body = (await res.json()) as { items?: unknown[] };
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
    return { ms: nowMs() - began, items: body.items?.length ?? 0 };
  };
  const middle = start + spanMs / 2;
  const queries = {
    '(a) newest page': () => '/logs/all?pageSize=100',
    '(b) level + instance': () => `/logs/all?pageSize=100&level=error&instanceId=${pick(instanceIds)}`,
    '(c) full-text rare word': () => `/logs/all?pageSize=100&search=${rareWord}`,
    '(d) 1 h in the middle': () => {
      const from = middle + Math.floor(random() * 86_400_000);
      return `/logs/all?pageSize=100&from=${new Date(from).toISOString()}&to=${new Date(from + 3_600_000).toISOString()}`;
    },
  };
  const results: { name: string; p50: number; p95: number; items: number }[] = [];
  for (const [name, url] of Object.entries(queries)) {
    await timed(url()); // warm
    const times: number[] = [];
    let items = 0;
    for (let i = 0; i < samples; i++) {
      const r = await timed(url());
      times.push(r.ms);
      items = r.items;
    }
    results.push({ name, p50: percentile(times, 50), p95: percentile(times, 95), items });
  }

  // Export: the newest `exportTarget` entries by time range.
  const exportFrom = new Date(end - Math.floor((exportTarget / total) * spanMs)).toISOString();
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const exportBegan = nowMs();
  const res = await fetch(`${base}/logs/export?format=ndjson&from=${exportFrom}`, { headers });
  let lines = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (let at = value.indexOf(10); at !== -1; at = value.indexOf(10, at + 1)) lines++;
  }
  const exportSeconds = (nowMs() - exportBegan) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);

  // Ingestion through the log writer while a query loop runs.
  const before = (await store.selectFrom('log_totals').select((eb) => eb.fn.sum<number>('entries').as('n')).executeTakeFirstOrThrow()).n;
  let written = 0;
  let stop = false;
  const queryLoop = (async () => {
    let n = 0;
    const names = Object.values(queries);
    while (!stop) {
      await timed(names[n++ % names.length]());
    }
    return n;
  })();
  const ingestBegan = nowMs();
  let t = end;
  while (nowMs() - ingestBegan < ingestSeconds * 1000) {
    const batch = Array.from({ length: 1000 }, () => ({
      timestamp: new Date(t++).toISOString(),
      level: 'information' as const,
      instanceId: pick(instanceIds),
      handler: 'postgres',
      message: Array.from({ length: 6 }, () => pick(words)).join(' '),
      properties: { seq: written },
    }));
    await app.instanceLogs.write(batch);
    written += batch.length;
    // Let the queries in between batches, as a server interleaves requests with tailing.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const ingestRate = written / ((nowMs() - ingestBegan) / 1000);
  stop = true;
  const queriesDuring = await queryLoop;
  const after = (await store.selectFrom('logs').select((eb) => eb.fn.countAll<number>().as('n')).where('timestamp', '>=', new Date(end).toISOString()).executeTakeFirstOrThrow()).n;
  const totals = (await store.selectFrom('log_totals').select((eb) => eb.fn.sum<number>('entries').as('n')).executeTakeFirstOrThrow()).n;

  await app.close();
  await store.destroy();
  rmSync(dir, { recursive: true, force: true });

  console.log(`\nLog store: ${total.toLocaleString()} entries${quick ? ' (--quick)' : ''}; generated at ${fmt(total / generateSeconds / 1000)}k/s; ` +
    `${fmt(storeBytes / 1024 ** 2)} MiB on disk, ${fmt(storeBytes / 1024 ** 2 / (total / 1e6))} MiB per million entries`);
  console.log('\n| query | p50 ms | p95 ms | rows |\n|---|---|---|---|');
  for (const r of results) console.log(`| ${r.name} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${r.items} |`);
  console.log(`\nExport: ${lines.toLocaleString()} entries (target ${exportTarget.toLocaleString()}) in ${fmt(exportSeconds, 2)} s = ` +
    `${fmt(lines / exportSeconds / 1000)}k entries/s; peak RSS growth ${fmt((peak - rssBefore) / 1024 ** 2)} MiB`);
  console.log(`Ingestion: ${written.toLocaleString()} entries in ${ingestSeconds} s = ${fmt(ingestRate / 1000)}k entries/s while ${queriesDuring} queries ran; ` +
    `stored ${Number(after).toLocaleString()}, totals grew by ${(Number(totals) - Number(before)).toLocaleString()}, lost ${written - Number(after)}`);
  if (written !== Number(after)) process.exitCode = 1;
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
