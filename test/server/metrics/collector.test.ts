import fs from 'node:fs';
import type { Instance } from '../../../contracts/instances';
import type { MetricsAppendedPayload, MetricsResponse } from '../../../contracts/statistics';
import { pgSuperuserTarget } from '../../../server/engines/pg';
import { withClient } from '../../../server/engines/pgBackup';
import { etcdctl as etcdctlAs } from '../engines/etcdClient';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// Sampling real instances: PostgreSQL 15 and etcd 3.4 started through the API, sampled by hand
// with sampleOnce() (the collector's timer runs too, which only adds samples).

jest.setTimeout(240_000);

let world: InstanceWorld;
let pg: Instance;
let kv: Instance;

const appended = (instanceId: string) =>
  (world.events('MetricsAppended') as MetricsAppendedPayload[]).filter((payload) => payload.instanceId === instanceId);
const latest = (instanceId: string) => appended(instanceId).at(-1)!.values;
const sample = () => world.app().metrics.sampleOnce();
const superuser = <T>(use: Parameters<typeof withClient<T>>[2]) =>
  withClient(pgSuperuserTarget(world.service().runtime({ id: pg.id, port: pg.port, peer_port: null })), 'app', use);
/** etcdctl on the instance, as its owner. */
const etcdctl = (...args: string[]) => etcdctlAs({ port: kv.port, dir: `${world.dataDir}/instances/${kv.id}` }, args);
const etcdPid = () => Number(fs.readFileSync(`${world.dataDir}/instances/${kv.id}/etcd.pid`, 'utf8'));

async function create(name: string, type: 'pg' | 'etcd') {
  const res = await world.call('POST', '/instances', { name, type });
  expect(res.statusCode).toBe(202);
  return res.json().id as string;
}

beforeAll(async () => {
  world = await instanceWorld();
  const [pgId, kvId] = [await create('metrics-pg', 'pg'), await create('metrics-kv', 'etcd')];
  await world.service().idle();
  pg = await world.instance(pgId);
  kv = await world.instance(kvId);
  expect([pg.status, kv.status]).toEqual(['running', 'running']);
  await sample();
});

afterAll(() => world.destroy());

describe('sampling PostgreSQL', () => {
  it('sees a burst of transactions as transactions per second', async () => {
    await superuser(async (client) => {
      for (let i = 0; i < 200; i++) await client.query('select 1');
    });
    await sample();
    expect(latest(pg.id).tps).toBeGreaterThan(0);
    expect(latest(pg.id)).toMatchObject({ max_connections: expect.any(Number), connections_total: expect.any(Number), longest_tx_seconds: expect.any(Number) });
    expect(latest(pg.id).rss_bytes).toBeGreaterThan(1_000_000);
    expect(latest(pg.id).cpu_percent).toBeGreaterThanOrEqual(0);
  });

  it('sees a 50 MB table grow the database size', async () => {
    const before = latest(pg.id).database_bytes!;
    await superuser((client) => client.query(`create table public.filler as select repeat(md5(i::text), 32) as pad from generate_series(1, 50000) as i`));
    await sample();
    expect(latest(pg.id).database_bytes! - before).toBeGreaterThan(45_000_000);
    expect(latest(pg.id).wal_bytes_per_s).toBeGreaterThan(0);
  });

  it('counts an open transaction and its age', async () => {
    await superuser(async (client) => {
      await client.query('begin');
      await client.query('select txid_current()');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await sample();
      await client.query('rollback');
    });
    expect(latest(pg.id).connections_idle_in_tx).toBe(1);
    expect(latest(pg.id).longest_tx_seconds).toBeGreaterThanOrEqual(1);
  });
});

describe('sampling etcd', () => {
  it('sees puts grow the key count', async () => {
    const before = latest(kv.id).keys ?? 0;
    for (let i = 0; i < 20; i++) etcdctl('put', `key-${i}`, 'value');
    await sample();
    expect(latest(kv.id).keys! - before).toBe(20);
    expect(latest(kv.id).db_size_bytes).toBeGreaterThan(0);
    expect(latest(kv.id).proposals_committed).toBeGreaterThan(0);
    expect(latest(kv.id).requests_per_s).toBeGreaterThanOrEqual(0);
  });

  it('does not hold up the others while it does not answer', async () => {
    const pgSamples = appended(pg.id).length;
    const kvSamples = appended(kv.id).length;
    process.kill(etcdPid(), 'SIGSTOP');
    try {
      await sample();
    } finally {
      process.kill(etcdPid(), 'SIGCONT');
    }
    expect(appended(pg.id).length).toBeGreaterThan(pgSamples);
    expect(appended(kv.id).length).toBe(kvSamples);
    // Answering again, it is sampled again.
    await sample();
    expect(appended(kv.id).length).toBeGreaterThan(kvSamples);
  });
});

describe('the stored series', () => {
  it('answers GET /instances/{id}/metrics with the samples, and refuses a bad range', async () => {
    const res = await world.call('GET', `/instances/${pg.id}/metrics?names=tps,database_bytes`);
    expect(res.statusCode).toBe(200);
    const body = res.json() as MetricsResponse;
    expect(body.step).toBe(10_000);
    expect(body.series.map((s) => s.name)).toEqual(['tps', 'database_bytes']);
    expect(body.series[1].points.length).toBeGreaterThanOrEqual(3);
    expect(body.series[0].points.some(([, value]) => value > 0)).toBe(true);
    const now = Date.now();
    const backwards = await world.call('GET', `/instances/${pg.id}/metrics?from=${new Date(now).toISOString()}&to=${new Date(now - 1000).toISOString()}`);
    expect(backwards.statusCode).toBe(400);
    const tooLong = await world.call('GET', `/instances/${pg.id}/metrics?from=${new Date(now - 200 * 86_400_000).toISOString()}`);
    expect(tooLong.statusCode).toBe(400);
    expect((await world.call('GET', `/instances/${pg.id}/metrics?names=nope`)).statusCode).toBe(400);
  });

  it("shows each instance's data folder size in the list, sortable", async () => {
    // The folder is walked beside the samples: wait for both sizes to be stored.
    for (let i = 0; i < 100; i++) {
      const items = (await world.call('GET', '/instances?sort=-sizeBytes')).json().items as Instance[];
      if (items.every((item) => typeof item.sizeBytes === 'number')) {
        const sizes = items.map((item) => item.sizeBytes!);
        expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
        expect(sizes.every((size) => size > 1_000_000)).toBe(true);
        expect(latest(pg.id).data_dir_bytes).toBeGreaterThan(1_000_000);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the sizes were never measured');
  });
});
