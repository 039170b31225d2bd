import fs from 'node:fs';
import type { Instance } from '../../../contracts/instances';
import type { LogsPage } from '../../../contracts/logs';
import { etcdctl as etcdctlAs, expectRefused, secretOf } from '../engines/etcdClient';
import { instanceWorld, type InstanceWorld } from './world';

// An etcd instance through the API, against Debian's etcd 3.4 and etcdctl.

jest.setTimeout(180_000);

let world: InstanceWorld;
let kv: Instance;

const member = (instance: Instance) => ({ port: instance.port, dir: `${world.dataDir}/instances/${instance.id}` });
/** etcdctl as the instance's owner. */
const etcdctl = (instance: Instance, ...args: string[]) => etcdctlAs(member(instance), args).trim();

/** A copy has passwords of its own: the source's open nothing on it. */
function expectOwnPasswords(copy: Instance, source: Instance) {
  for (const user of ['owner', 'root'] as const) {
    expect(secretOf(member(copy), user)).not.toBe(secretOf(member(source), user));
    const theSources = { user: user === 'owner' ? 'app' : 'root', password: secretOf(member(source), user) };
    expectRefused(member(copy), theSources, ['get', 'greeting'], /authentication failed/);
  }
  expect(etcdctlAs(member(copy), ['user', 'list'], { as: 'root' }).trim()).toBe('app\nroot');
}
const etcdPid = (instance: Instance) => Number(fs.readFileSync(`${world.dataDir}/instances/${instance.id}/etcd.pid`, 'utf8'));

beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'kv-main', type: 'etcd' });
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  kv = await world.instance(res.json().id);
});

afterAll(() => world.destroy());

describe('an etcd instance', () => {
  it('reaches running and serves etcdctl on its loopback port', () => {
    expect(kv).toMatchObject({ status: 'running', type: 'etcd', health: { level: 'good' } });
    expect(kv.engineVersion).toMatch(/^3\.4\./);
    expect(etcdctl(kv, 'put', 'greeting', 'hello')).toBe('OK');
    expect(etcdctl(kv, 'get', 'greeting', '--print-value-only')).toBe('hello');
  });

  it('checks flags against its list and restarts to apply them (etcd has no live reload)', async () => {
    const refused = await world.call('PUT', `/instances/${kv.id}/config`, { parameters: { 'snapshot-count': '0', 'log-level': 'chatty' } });
    expect(refused.statusCode).toBe(400);
    expect(Object.keys(refused.json().errors).sort()).toEqual(['log-level', 'snapshot-count']);

    const before = etcdPid(kv);
    const saved = await world.call('PUT', `/instances/${kv.id}/config`, { parameters: { 'snapshot-count': '5000' }, apply: 'restart' });
    expect(saved.json()).toEqual({ revision: 1, reload: [], restart: ['snapshot-count'], applied: 'restarting' });
    await world.service().idle();
    expect(etcdPid(kv)).not.toBe(before);
    expect((await world.instance(kv.id)).status).toBe('running');
    expect(etcdctl(kv, 'get', 'greeting', '--print-value-only')).toBe('hello');
    const config = (await world.call('GET', `/instances/${kv.id}/config`)).json();
    expect(config.parameters.find((p: { name: string }) => p.name === 'snapshot-count')).toMatchObject({ value: '5000', apply: 'restart' });
  });

  it('restores an earlier revision, resetting what was set after it', async () => {
    await world.call('PUT', `/instances/${kv.id}/config`, { parameters: { 'max-txn-ops': '256' }, apply: 'none' });
    const res = await world.call('POST', `/instances/${kv.id}/config/revisions/1/restore`, { apply: 'none' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ revision: 3, restart: ['max-txn-ops'] });
    const config = (await world.call('GET', `/instances/${kv.id}/config`)).json();
    expect(config.parameters.find((p: { name: string }) => p.name === 'max-txn-ops').value).toBe('128');
  });

  it('refuses names that are no flag, even those every object inherits, and writes nothing', async () => {
    const flagsFile = `${world.dataDir}/instances/${kv.id}/etcd.flags.json`;
    const before = fs.readFileSync(flagsFile, 'utf8');
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const res = await world.call('PUT', `/instances/${kv.id}/config`, { parameters: { [name]: '1', 'max-txn-ops': '300' }, apply: 'none' });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual({ [name]: [`Unknown etcd flag ${name}.`] });
    }
    expect(fs.readFileSync(flagsFile, 'utf8')).toBe(before);
  });

  it('clones from a snapshot of the running member, with the keys', async () => {
    const res = await world.call('POST', `/instances/${kv.id}/clone`, { name: 'kv-copy' });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const copy = await world.instance(res.json().id);
    expect(copy.status).toBe('running');
    expect(etcdctl(copy, 'get', 'greeting', '--print-value-only')).toBe('hello');
    expectOwnPasswords(copy, kv);
    // The copy is its own member: writes there do not reach the original.
    etcdctl(copy, 'put', 'only-in-copy', 'yes');
    expect(etcdctl(kv, 'get', 'only-in-copy')).toBe('');
  });

  it('clones a stopped member from its data file', async () => {
    await world.call('POST', `/instances/${kv.id}/stop`, {});
    await world.service().idle();
    expect((await world.instance(kv.id)).status).toBe('stopped');
    const res = await world.call('POST', `/instances/${kv.id}/clone`, { name: 'kv-cold' });
    await world.service().idle();
    const cold = await world.instance(res.json().id);
    expect(cold.status).toBe('running');
    expect(etcdctl(cold, 'get', 'greeting', '--print-value-only')).toBe('hello');
    expectOwnPasswords(cold, kv);
  });

  it('ingests zap JSON lines with mapped levels', async () => {
    await world.logs().pollOnce();
    const page = (await world.call('GET', `/instances/${kv.id}/logs?handler=etcd&levels=information&limit=500`)).json() as LogsPage;
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.some((e) => /ready to serve client requests|serving client traffic/.test(e.message))).toBe(true);
  });

  it('deletes a stopped instance and its folder', async () => {
    const res = await world.call('DELETE', `/instances/${kv.id}`);
    expect(res.statusCode).toBe(200);
    expect(fs.existsSync(`${world.dataDir}/instances/${kv.id}`)).toBe(false);
  });
});
