import fs from 'node:fs';
import path from 'node:path';
import type { Instance } from '../../../contracts/instances';
import type { ScriptRun } from '../../../contracts/scripts';
import { etcdctl as etcdctlAs } from '../engines/etcdClient';
import { expectProblem } from '../helpers';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// etcd scripts on a real etcd 3.4 member: one command a line, run with etcdctl against a sandbox
// member made from a snapshot; the instance's own keys never change.

jest.setTimeout(180_000);

let world: InstanceWorld;
let config: Instance;

/** etcdctl on the instance, as its owner. */
const etcdctl = (...args: string[]) => etcdctlAs({ port: config.port, dir: path.join(world.dataDir, 'instances', config.id) }, args);

async function run(body: Record<string, unknown>): Promise<ScriptRun> {
  const started = await world.call('POST', `/instances/${config.id}/script`, body);
  expect(started.statusCode).toBe(202);
  await world.app().scripts.idle();
  return (await world.call('GET', `/instances/${config.id}/script/runs/${started.json().id}`)).json() as ScriptRun;
}

beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'config', type: 'etcd' });
  await world.service().idle();
  config = await world.instance(res.json().id);
  etcdctl('put', 'app/mode', 'production');
  etcdctl('put', 'app/replicas', '3');
});

afterAll(async () => {
  await world.destroy();
});

describe('running an etcd script', () => {
  it('runs put, get, get --prefix and del on a live copy, with their outputs, and leaves the instance alone', async () => {
    const result = await run({
      source: 'live',
      script: '# tune the copy\nput app/mode "staging mode"\nput app/new fresh value\nget app/mode\nget --prefix app/\ndel --prefix app/\nget --prefix app/',
    });
    expect(result).toMatchObject({ status: 'succeeded', ok: true, copiedFrom: 'live', statements: 6 });
    expect(result.results.map((r) => [r.line, r.command, r.output])).toEqual([
      [2, 'PUT', 'OK'],
      [3, 'PUT', 'OK'],
      [4, 'GET', 'app/mode\nstaging mode'],
      [5, 'GET', 'app/mode\nstaging mode\napp/new\nfresh value\napp/replicas\n3'],
      [6, 'DEL', '3'],
      [7, 'GET', ''],
    ]);
    expect(result.results[3]).toMatchObject({ rowCount: 3, columns: [{ name: 'key', type: 'bytes' }, { name: 'value', type: 'bytes' }] });
    expect(result.results[3].rows).toEqual([['app/mode', 'staging mode'], ['app/new', 'fresh value'], ['app/replicas', '3']]);
    expect(result.results[4].rowCount).toBe(3);
    // The instance still holds its own keys, and no sandbox stays behind.
    expect(etcdctl('get', '--prefix', 'app/')).toBe('app/mode\nproduction\napp/replicas\n3\n');
    expect(fs.readdirSync(path.join(world.dataDir, 'instances')).filter((n) => n.startsWith('.') && n !== '.limits')).toEqual([]);
  });

  it('refuses to run on the newest backup of an instance that has none, saying what to choose instead, and runs on an empty instance when asked', async () => {
    const runs = async () => (await world.call('GET', `/instances/${config.id}/script/runs`)).json().total as number;
    const before = await runs();
    const refused = await world.call('POST', `/instances/${config.id}/script`, { script: 'get --prefix app/' });
    expectProblem(refused, 409);
    expect(refused.json()).toMatchObject({
      title: 'No backup to copy',
      detail: expect.stringMatching(/no backup to copy.*source 'live' for a copy of the live instance, or source 'empty' for an empty instance/),
    });
    // No run was made, and the refusal is in the audit trail.
    expect(await runs()).toBe(before);
    const audit = (await world.call('GET', '/admin/audit?action=scripts.run&outcome=failure')).json();
    expect(audit.items).toEqual([expect.objectContaining({ target: config.id, targetName: 'config', detail: expect.objectContaining({ status: 409 }) })]);

    const empty = await run({ script: 'get --prefix app/', source: 'empty' });
    expect(empty).toMatchObject({ status: 'succeeded', source: 'empty', copiedFrom: 'empty', backupId: null });
    expect(empty.results[0].output).toBe('');
  });

  it('stops at a line that is not a command, pointing at its line', async () => {
    const result = await run({ script: 'put a 1\nwatch a\nget a', source: 'empty' });
    expect(result).toMatchObject({ status: 'failed', copiedFrom: 'empty', failures: 1 });
    expect(result.results).toHaveLength(2);
    expect(result.results[1].error).toMatchObject({ line: 2, message: expect.stringMatching(/unknown command watch/) });
  });
});
