import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ConnectionInfo, Instance } from '../../../contracts/instances';
import { etcdctl, expectRefused } from '../engines/etcdClient';
import { expectProblem } from '../helpers';
import { instanceWorld, type InstanceWorld } from './world';

// The owner user of an etcd instance through the connection calls (DESIGN §11), against a real
// etcd 3.4: what a member of the instance's group gets, and that root stays the control plane's.

jest.setTimeout(180_000);

let world: InstanceWorld;
let kv: Instance;
let member: string;

const memberOf = () => ({ port: kv.port, dir: path.join(world.dataDir, 'instances', kv.id) });
const asOwner = (password: string) => ({ user: 'app', password });

async function secret(cookie?: string, query = ''): Promise<string> {
  const res = await world.call('POST', `/instances/${kv.id}/connection/secret${query}`, {}, cookie);
  expect(res.statusCode).toBe(200);
  return res.json().password;
}

beforeAll(async () => {
  world = await instanceWorld();
  const team = await world.groupWithMember('team', 'member@example.com');
  member = team.cookie;
  kv = await world.created({ name: 'settings', type: 'etcd', groupId: team.groupId });
  expect(kv.status).toBe('running');
});

afterAll(() => world.destroy());

describe('the owner user of an etcd instance', () => {
  it("is what a group member connects as: the command given works with the revealed password (audited), and nothing works without it", async () => {
    const connection = (await world.call('GET', `/instances/${kv.id}/connection`, undefined, member)).json() as ConnectionInfo;
    expect(connection).toEqual({
      host: '127.0.0.1',
      port: kv.port,
      user: 'app',
      database: null,
      uri: `http://127.0.0.1:${kv.port}`,
      command: `etcdctl --endpoints=http://127.0.0.1:${kv.port} --user=app get --prefix --keys-only ''`,
      endpoints: [`http://127.0.0.1:${kv.port}`],
    });
    const password = await secret(member);
    etcdctl(memberOf(), ['put', 'feature/dark-mode', 'on'], { as: asOwner(password) });
    // The command as given, with the password where etcdctl also looks for it instead of asking.
    const ran = spawnSync('sh', ['-c', connection.command], { env: { PATH: process.env.PATH, ETCDCTL_PASSWORD: password }, encoding: 'utf8' });
    expect({ status: ran.status, keys: ran.stdout.trim() }).toEqual({ status: 0, keys: 'feature/dark-mode' });
    expectRefused(memberOf(), 'nobody', ['get', '--prefix', ''], /user name is empty/);
    expectRefused(memberOf(), asOwner(password), ['user', 'add', 'mine:pw'], /permission denied/);
    const [entry] = await world.auditOf('instances.connection.secret');
    expect(entry).toMatchObject({ outcome: 'success', target: kv.id, user_id: await world.userId('member@example.com') });
    expect(JSON.parse(entry.detail!)).toMatchObject({ role: 'app' });
  });

  it("never reveals root's password, to admins either (audited as dangerous)", async () => {
    expect(expectProblem(await world.call('POST', `/instances/${kv.id}/connection/secret?role=superuser`, {}, member), 403).detail).toMatch(/Only admins/);
    expect(expectProblem(await world.call('POST', `/instances/${kv.id}/connection/secret?role=superuser`, {}), 409).detail).toMatch(/root user is Warden's alone/);
    const entries = await world.auditOf('instances.connection.secret.superuser');
    expect(entries.map((e) => [e.outcome, JSON.parse(e.detail!).status])).toEqual([
      ['failure', 409],
      ['failure', 403],
    ]);
  });

  it('rotates the password (audited): the old one stops working, the new one works, also after a restart', async () => {
    const old = await secret(member);
    const res = await world.call('POST', `/instances/${kv.id}/connection/rotate`, {}, member);
    expect(res.statusCode).toBe(200);
    const fresh = res.json().password as string;
    expect(fresh).not.toBe(old);
    expectRefused(memberOf(), asOwner(old), ['get', 'feature/dark-mode'], /authentication failed/);
    expect(etcdctl(memberOf(), ['get', 'feature/dark-mode', '--print-value-only'], { as: asOwner(fresh) })).toBe('on\n');
    expect(await secret(member)).toBe(fresh);
    expect((await world.auditOf('instances.connection.rotate'))[0]).toMatchObject({ outcome: 'success', target: kv.id, user_id: await world.userId('member@example.com') });

    expect((await world.call('POST', `/instances/${kv.id}/restart`, {}, member)).statusCode).toBe(202);
    await world.service().idle();
    expect(etcdctl(memberOf(), ['get', 'feature/dark-mode', '--print-value-only'], { as: asOwner(fresh) })).toBe('on\n');
    // Passwords travel in request bodies and environments, never into the member's log.
    const logs = path.join(memberOf().dir, 'logs');
    expect(fs.readdirSync(logs).map((f) => fs.readFileSync(path.join(logs, f), 'utf8')).join('\n')).not.toContain(fresh);
  });

  it('answers 409 to a rotation while the instance is stopped; the password is still there to read', async () => {
    expect((await world.call('POST', `/instances/${kv.id}/stop`, {}, member)).statusCode).toBe(202);
    await world.service().idle();
    expect(expectProblem(await world.call('POST', `/instances/${kv.id}/connection/rotate`, {}, member), 409).detail).toMatch(/not running/);
    expect(await secret(member)).toMatch(/^\S{20,}$/);
  });
});
