import type { Instance } from '../../../contracts/instances';
import { etcdctlAs } from '../engines/etcdClient';
import { instanceWorld, type InstanceWorld } from './world';

// An etcd instance's upkeep against Debian's etcd 3.4: the NOSPACE alarm a full backend raises,
// fragmentation after deletions, and compaction and defragmentation as operations that clear both.

jest.setTimeout(180_000);

let world: InstanceWorld;

beforeAll(async () => {
  world = await instanceWorld();
});

afterAll(() => world.destroy());

const dir = (instance: Instance) => `${world.dataDir}/instances/${instance.id}`;
const owner = (instance: Instance, ...args: string[]) => etcdctlAs({ port: instance.port, dir: dir(instance) }, 'owner', args);
/** A value of `bytes` bytes (etcdctl reads it from stdin when the value is left out). */
const putBig = (instance: Instance, key: string, bytes: number) =>
  etcdctlAs({ port: instance.port, dir: dir(instance) }, 'owner', ['put', key], 'x'.repeat(bytes));

async function checksOf(id: string) {
  await world.service().probeAll();
  return (await world.instance(id)).health.checks;
}

async function operate(instance: Instance, what: 'compact' | 'defragment') {
  const res = await world.call('POST', `/instances/${instance.id}/etcd/${what}`, {});
  expect(res.statusCode).toBe(202);
  expect(res.json().operation.kind).toBe(what);
  await world.service().idle();
  return world.events('OperationCompleted').filter((p) => p.instanceId === instance.id && p.kind === what).at(-1);
}

describe('etcd upkeep', () => {
  it('raises NOSPACE in health when the backend reaches its quota, and compaction with defragmentation clears it', async () => {
    const created = await world.call('POST', '/instances', { name: 'tight-kv', type: 'etcd', parameters: { 'quota-backend-bytes': String(4 * 1024 * 1024) } });
    expect(created.statusCode).toBe(202);
    await world.service().idle();
    const kv = await world.instance(created.json().id);

    let refused = '';
    for (let i = 0; i < 40 && !refused; i++) {
      const put = putBig(kv, `blob-${i % 4}`, 512 * 1024);
      if (put.status !== 0) refused = put.stderr;
    }
    expect(refused).toMatch(/database space exceeded/);
    const alarmed = await checksOf(kv.id);
    expect(alarmed).toContainEqual({ name: 'alarms', level: 'error', message: expect.stringMatching(/^NOSPACE: the backend reached its quota/) });
    // Still serving reads: an alarm is not an outage.
    expect((await world.instance(kv.id)).status).toBe('running');
    expect(owner(kv, 'get', 'blob-0', '--keys-only').stdout.trim()).toBe('blob-0');

    expect(owner(kv, 'del', '--prefix', 'blob-').status).toBe(0);
    expect(await operate(kv, 'compact')).toMatchObject({ ok: true, detail: expect.stringMatching(/^history before revision \d+ dropped$/) });
    expect(await operate(kv, 'defragment')).toMatchObject({ ok: true, detail: expect.stringMatching(/^1 member defragmented, \d+ bytes given back$/) });
    expect((await checksOf(kv.id)).some((c) => c.name === 'alarms')).toBe(false);
    expect(owner(kv, 'put', 'after', 'room again').stdout.trim()).toBe('OK');
  });

  it('warns of a backend that is mostly free space, and defragmenting gives it back', async () => {
    const kv = await world.created({ name: 'churned-kv', type: 'etcd' });
    for (let i = 0; i < 24; i++) expect(putBig(kv, `churn-${i}`, 1024 * 1024).status).toBe(0);
    expect(owner(kv, 'del', '--prefix', 'churn-').status).toBe(0);
    expect(await operate(kv, 'compact')).toMatchObject({ ok: true });
    // The backend counts the pages compaction freed at its next commit.
    expect(owner(kv, 'put', 'after-compaction', 'x').status).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await checksOf(kv.id)).toContainEqual({ name: 'fragmentation', level: 'warn', message: 'over half of the backend file is free space: defragment to give it back' });
    expect(await operate(kv, 'defragment')).toMatchObject({ ok: true });
    expect((await checksOf(kv.id)).some((c) => c.name === 'fragmentation')).toBe(false);
  });

  it('refuses upkeep of a PostgreSQL instance or a stopped etcd with a 409 that says why', async () => {
    const pg = await world.created({ name: 'plain-pg', type: 'pg' });
    const res = await world.call('POST', `/instances/${pg.id}/etcd/compact`, {});
    expect([res.statusCode, res.json().detail]).toEqual([409, "plain-pg is a PostgreSQL instance: compaction and defragmentation are etcd's."]);
    const kv = await world.created({ name: 'resting-kv', type: 'etcd' });
    expect((await world.call('POST', `/instances/${kv.id}/stop`, {})).statusCode).toBe(202);
    await world.service().idle();
    const stopped = await world.call('POST', `/instances/${kv.id}/etcd/defragment`, {});
    expect([stopped.statusCode, stopped.json().detail]).toEqual([409, 'resting-kv is stopped: start it first.']);
  });
});
