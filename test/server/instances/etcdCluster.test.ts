import fs from 'node:fs';
import type { ConnectionInfo, Instance, InstanceMember } from '../../../contracts/instances';
import { etcdctlAs } from '../engines/etcdClient';
import { instanceWorld, type InstanceWorld } from './world';
import { processAlive as alive } from '../helpers';

// An etcd cluster of three members through the API, against Debian's etcd 3.4: each member its own
// process and ports under the instance's folder and user; losing one leaves it writable, and
// supervision starts the lost member again, which rejoins with what was written meanwhile.

jest.setTimeout(240_000);

let world: InstanceWorld;
let cluster: Instance;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const dir = () => `${world.dataDir}/instances/${cluster.id}`;
const members = async (): Promise<InstanceMember[]> => (await world.call('GET', `/instances/${cluster.id}/members`)).json();
/** etcdctl as the owner against one member's client port. */
const onMember = (port: number, ...args: string[]) => etcdctlAs({ port, dir: dir() }, 'owner', args);
/** The pid file of member `ordinal` (the first's is the instance's own). */
const pidFile = (ordinal: number) => (ordinal === 1 ? `${dir()}/etcd.pid` : `${dir()}/members/${ordinal}/etcd.pid`);
const pidOf = (ordinal: number) => Number(fs.readFileSync(pidFile(ordinal), 'utf8'));
beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'kv-cluster', type: 'etcd', members: 3 });
  expect(res.statusCode).toBe(202);
  expect(res.json().members).toBe(3);
  await world.service().idle();
  cluster = await world.instance(res.json().id);
});

afterAll(() => world.destroy());

describe('an etcd cluster of three members', () => {
  it('runs three members, one of them the leader, each on its own port as the instance user', async () => {
    expect(cluster).toMatchObject({ status: 'running', type: 'etcd', members: 3, health: { level: 'good' } });
    const listed = await members();
    expect(listed.map((m) => [m.ordinal, m.state])).toEqual([
      [1, 'running'],
      [2, 'running'],
      [3, 'running'],
    ]);
    expect(listed.filter((m) => m.role === 'leader')).toHaveLength(1);
    expect(new Set(listed.map((m) => m.port)).size).toBe(3);
    expect(listed[0].port).toBe(cluster.port);
    // Each member is the instance user's process, none the server's.
    const owner = fs.statSync(dir()).uid;
    for (const ordinal of [1, 2, 3]) expect(fs.statSync(`/proc/${pidOf(ordinal)}`).uid).toBe(owner);
    expect(cluster.health.checks.find((c) => c.name === 'quorum')).toMatchObject({ level: 'good', message: expect.stringMatching(/^3 of 3 members answer/) });
  });

  it('gives every endpoint in its connection details, and a write on one member is read on another', async () => {
    const connection: ConnectionInfo = (await world.call('GET', `/instances/${cluster.id}/connection`)).json();
    const ports = (await members()).map((m) => m.port);
    expect(connection.endpoints).toEqual(ports.map((p) => `http://127.0.0.1:${p}`));
    expect(connection.command).toContain(`--endpoints=${connection.endpoints.join(',')}`);
    expect(onMember(ports[0], 'put', 'greeting', 'hello').stdout.trim()).toBe('OK');
    expect(onMember(ports[2], 'get', 'greeting', '--print-value-only').stdout.trim()).toBe('hello');
  });

  it('stays writable when the leader dies, and supervision starts the lost member again, which catches up', async () => {
    const before = await members();
    const leader = before.find((m) => m.role === 'leader')!;
    const pid = pidOf(leader.ordinal);
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(50);

    // The two left elect a leader and take writes.
    const survivor = before.find((m) => m.ordinal !== leader.ordinal)!;
    let written = onMember(survivor.port, 'put', 'during', 'one-lost');
    for (let i = 0; i < 50 && written.status !== 0; i++) {
      await sleep(200);
      written = onMember(survivor.port, 'put', 'during', 'one-lost');
    }
    expect(written.stdout.trim()).toBe('OK');

    // A probe finds the member gone: the instance still runs, its health warns and names it.
    await world.service().probeAll();
    const degraded = await world.instance(cluster.id);
    expect(degraded.status).toBe('running');
    expect(degraded.health.level).toBe('warn');
    expect(degraded.health.checks.find((c) => c.name === `member ${leader.ordinal}`)).toMatchObject({ level: 'warn', message: 'not running' });
    expect(degraded.health.checks.find((c) => c.name === 'quorum')?.message).toMatch(/^2 of 3 members answer .*writable/);
    expect((await members()).find((m) => m.ordinal === leader.ordinal)?.state).toBe('stopped');

    // Supervision starts it again after its backoff; it rejoins and holds the write it missed.
    let back = false;
    for (let i = 0; i < 120 && !back; i++) {
      await sleep(250);
      await world.service().probeAll();
      await world.service().idle();
      back = (await members()).every((m) => m.state === 'running');
    }
    expect(back).toBe(true);
    expect(pidOf(leader.ordinal)).not.toBe(pid);
    const logged = (await world.call('GET', `/instances/${cluster.id}/logs?handler=supervisor`)).json().items.map((e: { message: string }) => e.message);
    expect(logged.some((m: string) => m.startsWith(`Member ${leader.ordinal} of the cluster stopped (crash 1 within`))).toBe(true);
    expect(onMember(leader.port, 'get', 'during', '--print-value-only', '--consistency=s').stdout.trim()).toBe('one-lost');
    await world.service().probeAll();
    expect((await world.instance(cluster.id)).health.level).toBe('good');
  });

  it('stops and starts every member together', async () => {
    expect((await world.call('POST', `/instances/${cluster.id}/stop`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect((await world.instance(cluster.id)).status).toBe('stopped');
    expect((await members()).map((m) => m.state)).toEqual(['stopped', 'stopped', 'stopped']);
    expect((await world.call('POST', `/instances/${cluster.id}/start`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect((await world.instance(cluster.id)).status).toBe('running');
    const port = (await members())[1].port;
    expect(onMember(port, 'get', 'greeting', '--print-value-only').stdout.trim()).toBe('hello');
  });

  it('takes a database backup from a healthy member', async () => {
    const res = await world.call('POST', `/instances/${cluster.id}/backups/database/backup`, {});
    expect(res.statusCode).toBe(202);
    await world.backups().idle();
    const backup = (await world.call('GET', `/instances/${cluster.id}/backups/database`)).json().items[0];
    expect(backup).toMatchObject({ status: 'succeeded' });
    expect(backup.contents.keyCount).toBeGreaterThanOrEqual(2);
  });

  it('refuses member counts without a quorum with a 400 that says why', async () => {
    for (const [type, count, why] of [
      ['etcd', 2, /1, 3 or 5 members/],
      ['etcd', 4, /1, 3 or 5 members/],
    ] as const) {
      const res = await world.call('POST', '/instances', { name: `refused-${type}-${count}`, type, members: count });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors.members[0]).toMatch(why);
    }
    expect((await world.call('POST', '/instances', { name: 'refused-six', type: 'etcd', members: 6 })).statusCode).toBe(400);
  });

  it('grows a single member to three through etcd member add, and shrinks by the last member, refusing to leave fewer than a quorum answering', async () => {
    const kv = await world.created({ name: 'kv-growing', type: 'etcd' });
    const kvDir = `${world.dataDir}/instances/${kv.id}`;
    const on = (port: number, ...args: string[]) => etcdctlAs({ port, dir: kvDir }, 'owner', args);
    expect(on(kv.port, 'put', 'before', 'growing').stdout.trim()).toBe('OK');
    const listOf = async (): Promise<InstanceMember[]> => (await world.call('GET', `/instances/${kv.id}/members`)).json();

    for (const count of [2, 3]) {
      const res = await world.call('POST', `/instances/${kv.id}/members`, {});
      expect(res.statusCode).toBe(202);
      expect(res.json().operation.kind).toBe('addMember');
      await world.service().idle();
      expect(world.events('OperationCompleted').filter((p) => p.instanceId === kv.id).at(-1)).toMatchObject({
        error: null,
        detail: `member ${count} joined: ${count} members, a quorum of ${Math.floor(count / 2) + 1}`,
      });
      expect((await world.instance(kv.id)).members).toBe(count);
      expect((await listOf()).map((m) => m.state)).toEqual(Array(count).fill('running'));
    }
    const third = (await listOf())[2];
    // The new member joined with what the cluster held before it.
    expect(on(third.port, 'get', 'before', '--print-value-only', '--consistency=s').stdout.trim()).toBe('growing');

    const first = await world.call('DELETE', `/instances/${kv.id}/members/1`);
    expect([first.statusCode, first.json().detail]).toEqual([400, 'Only the last member (3) is removed: members keep their numbers and ports.']);

    // Member 2 lost: without member 3, one of two would answer, fewer than their quorum of two.
    process.kill(Number(fs.readFileSync(`${kvDir}/members/2/etcd.pid`, 'utf8')), 'SIGKILL');
    const refused = await world.call('DELETE', `/instances/${kv.id}/members/3`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toBe('Without member 3, 1 of 2 members answer, fewer than a quorum of 2: the cluster could not write. Start the others first.');
    // Supervision starts member 2 again; then the last member goes.
    for (let i = 0; i < 120 && (await listOf()).some((m) => m.state !== 'running'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      await world.service().probeAll();
      await world.service().idle();
    }
    const removed = await world.call('DELETE', `/instances/${kv.id}/members/3`);
    expect(removed.statusCode).toBe(202);
    await world.service().idle();
    expect(world.events('OperationCompleted').filter((p) => p.instanceId === kv.id).at(-1)).toMatchObject({ error: null, detail: 'member 3 removed: 2 members, a quorum of 2' });
    expect((await world.instance(kv.id)).members).toBe(2);
    expect(fs.existsSync(`${kvDir}/members/3`)).toBe(false);
  });

  it('answers the members of a single instance as one', async () => {
    const single = await world.created({ name: 'kv-single', type: 'etcd' });
    const listed: InstanceMember[] = (await world.call('GET', `/instances/${single.id}/members`)).json();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ ordinal: 1, role: 'leader', state: 'running', port: single.port });
    expect(single.members).toBe(1);
  });

  it('shows members to the group alone: others get 404', async () => {
    const { cookie } = await world.groupWithMember('outsiders', 'outsider@example.com');
    expect((await world.call('GET', `/instances/${cluster.id}/members`, undefined, cookie)).statusCode).toBe(404);
  });
});
