import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Instance } from '../../../contracts/instances';
import { insertBackup } from '../../../server/db/backups';
import { addMembers, createGroup } from '../../../server/db/groups';
import { findInstanceRow } from '../../../server/db/instances';
import type { Config } from '../../../server/config';
import { addUser, cookieLogin, expectProblem, origin, setup, type Harness } from '../helpers';
import { inertEngine } from './inertEngine';

// Port exhaustion, group quotas and the per-user creation limit, with an engine that runs nothing:
// these are rules of the control plane, answered before any engine is involved.

let h: Harness;
let dataDir: string;
let cookies: { admin: string; member: string; other: string };
let groupId: string;

async function start(config: Partial<Config> = {}) {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-quotas-'));
  fs.chmodSync(dataDir, 0o711);
  h = await setup({ config: { dataDir, ...config }, engines: { pg: inertEngine('pg'), etcd: inertEngine('etcd') }, supervise: false });
  await addUser(h.db, 'admin@example.com', 'admin');
  const member = await addUser(h.db, 'member@example.com');
  const other = await addUser(h.db, 'other@example.com');
  groupId = (await createGroup(h.db, { name: 'payments' }, h.clock.now())).id;
  await addMembers(h.db, groupId, [member.id, other.id], h.clock.now());
  cookies = {
    admin: await cookieLogin(h, 'admin@example.com'),
    member: await cookieLogin(h, 'member@example.com'),
    other: await cookieLogin(h, 'other@example.com'),
  };
}
afterEach(async () => {
  await h.app.instances.idle();
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const call = (cookie: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  h.app.inject({ method, url, headers: { cookie, origin }, ...(payload && { payload }) });
const createInstance = (name: string, cookie = cookies.admin, type: 'pg' | 'etcd' = 'pg') =>
  call(cookie, 'POST', '/instances', { name, type, groupId });

/** A loopback port nothing listens on now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1' }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('port exhaustion', () => {
  it('answers 503 naming the configured range once its ports are used up, and creates nothing', async () => {
    const port = await freePort();
    await start({ instancePorts: { from: port, to: port } });
    expect((await createInstance('first')).statusCode).toBe(202);
    const full = expectProblem(await createInstance('second'), 503);
    expect(full.detail).toBe(`no free port in ${port}-${port}`);
    // etcd needs two ports: refused the same way.
    expect(expectProblem(await createInstance('keys', cookies.admin, 'etcd'), 503).detail).toBe(`no free port in ${port}-${port}`);
    const first = (await call(cookies.admin, 'GET', '/instances')).json().items.map((i: Instance) => i.name);
    expect(first).toEqual(['first']);
    const clone = (await call(cookies.admin, 'GET', '/instances')).json().items[0] as Instance;
    await h.app.instances.idle();
    expect(expectProblem(await call(cookies.admin, 'POST', `/instances/${clone.id}/clone`, { name: 'copy' }), 503).detail).toBe(
      `no free port in ${port}-${port}`,
    );
  });
});

describe('group quotas', () => {
  beforeEach(() => start());

  it('is set by admins, answered in the group, kept by a rename and cleared with null', async () => {
    const set = await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments', quota: { maxInstances: 5, maxBackupBytes: 10_000_000_000 } });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ quota: { maxInstances: 5, maxBackupBytes: 10_000_000_000 }, instanceCount: 0, backupBytes: 0 });
    // A rename without a quota keeps it.
    await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments-eu' });
    expect((await call(cookies.member, 'GET', `/groups/${groupId}`)).json()).toMatchObject({ name: 'payments-eu', quota: { maxInstances: 5, maxBackupBytes: 10_000_000_000 } });
    // An absent or null field is unlimited.
    const cleared = await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments', quota: { maxInstances: null } });
    expect(cleared.json().quota).toEqual({ maxInstances: null, maxBackupBytes: null });
  });

  it('refuses a quota from a regular user, and bad values with a 400 problem', async () => {
    expectProblem(await call(cookies.member, 'PUT', `/groups/${groupId}`, { name: 'payments', quota: { maxInstances: 50 } }), 403);
    for (const quota of [{ maxInstances: -1 }, { maxInstances: 1.5 }, { maxBackupBytes: 'lots' }, { maxInstances: 2, cpus: 4 }, { maxBackupBytes: 1e16 }]) {
      const res = await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments', quota });
      expectProblem(res, 400);
    }
    expect((await call(cookies.admin, 'GET', `/groups/${groupId}`)).json().quota).toEqual({ maxInstances: null, maxBackupBytes: null });
  });

  it('refuses to create or clone an instance into a group at its instance quota, with a 409 naming the quota', async () => {
    await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments', quota: { maxInstances: 2 } });
    expect((await createInstance('one', cookies.member)).statusCode).toBe(202);
    const two = (await createInstance('two', cookies.member)).json() as Instance;
    await h.app.instances.idle();
    const refused = expectProblem(await createInstance('three', cookies.member), 409);
    expect(refused.detail).toBe("group 'payments' has reached its quota of 2 instances");
    expect(expectProblem(await call(cookies.member, 'POST', `/instances/${two.id}/clone`, { name: 'copy' }), 409).detail).toBe(
      "group 'payments' has reached its quota of 2 instances",
    );
    expect((await call(cookies.admin, 'GET', `/groups/${groupId}`)).json()).toMatchObject({ instanceCount: 2 });
    // Raising the quota lets the next one in.
    await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments', quota: { maxInstances: 3 } });
    expect((await createInstance('three', cookies.member)).statusCode).toBe(202);
  });

  it('refuses to move an instance into a group at its instance quota, and lets one move within or out of it', async () => {
    await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments', quota: { maxInstances: 1 } });
    const inside = (await createInstance('inside', cookies.member)).json() as Instance;
    const outside = (await call(cookies.admin, 'POST', '/instances', { name: 'outside', type: 'pg' })).json() as Instance;
    await h.app.instances.idle();

    const refused = expectProblem(await call(cookies.admin, 'PUT', `/instances/${outside.id}`, { groupId }), 409);
    expect(refused.detail).toBe("group 'payments' has reached its quota of 1 instance");
    expect((await findInstanceRow(h.db, outside.id))?.group_id).toBeNull();
    // Naming the group an instance is already in is no move.
    expect((await call(cookies.admin, 'PUT', `/instances/${inside.id}`, { groupId, description: 'kept' })).statusCode).toBe(200);
    // Out of the group, the place is free for the other one.
    expect((await call(cookies.admin, 'PUT', `/instances/${inside.id}`, { groupId: null })).statusCode).toBe(200);
    expect((await call(cookies.admin, 'PUT', `/instances/${outside.id}`, { groupId })).statusCode).toBe(200);
    expect((await call(cookies.admin, 'GET', `/groups/${groupId}`)).json()).toMatchObject({ instanceCount: 1 });
  });

  it("refuses a backup when the group's kept backups would exceed its byte quota", async () => {
    const orders = (await createInstance('orders', cookies.member)).json() as Instance;
    await h.app.instances.idle();
    const row = (await findInstanceRow(h.db, orders.id))!;
    await insertBackup(h.db, {
      id: 'kept-1', instance_id: orders.id, instance_name: row.name, engine: 'pg', kind: 'database', trigger: 'manual', status: 'succeeded',
      started_at: '2030-01-01T00:00:00.000Z', finished_at: '2030-01-01T00:01:00.000Z', size_bytes: 600_000, sha256: 'x', format: 'inert',
      engine_version: '15.0', error: null, storage_key: 'kept-1', contents: '{}', verification: null, created_by: null,
    });
    await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments', quota: { maxBackupBytes: 1_000_000 } });
    expect((await call(cookies.member, 'GET', `/groups/${groupId}`)).json()).toMatchObject({ backupBytes: 600_000, quota: { maxBackupBytes: 1_000_000 } });
    const refused = expectProblem(await call(cookies.member, 'POST', `/instances/${orders.id}/backups/database/backup`, {}), 409);
    expect(refused.detail).toMatch(/^group 'payments' has reached its quota of 1\.0 MB of backups \(600 kB kept/);
    // Nothing was recorded for the refused backup.
    expect((await h.db.selectFrom('backups').select('id').execute()).map((b) => b.id)).toEqual(['kept-1']);
    await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments', quota: { maxBackupBytes: 2_000_000 } });
    const taken = await call(cookies.member, 'POST', `/instances/${orders.id}/backups/database/backup`, {});
    expect(taken.statusCode).toBe(202);
    await h.app.backups.idle();
  });
});

describe('the per-user creation limit', () => {
  beforeEach(() => start({ instanceCreateRateLimit: 3 }));

  it('answers 429 once a user created (or cloned) the allowed number in a minute; others are not held back', async () => {
    const first = (await createInstance('app-1', cookies.member)).json() as Instance;
    expect((await createInstance('app-2', cookies.member)).statusCode).toBe(202);
    await h.app.instances.idle();
    expect((await call(cookies.member, 'POST', `/instances/${first.id}/clone`, { name: 'app-3' })).statusCode).toBe(202);
    const limited = await createInstance('app-4', cookies.member);
    const problem = expectProblem(limited, 429);
    expect(problem.detail).toMatch(/at most 3 times a minute/);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(expectProblem(await call(cookies.member, 'POST', `/instances/${first.id}/clone`, { name: 'app-5' }), 429).detail).toMatch(/at most 3/);
    expect((await createInstance('bee-1', cookies.other)).statusCode).toBe(202);
    const names = (await call(cookies.admin, 'GET', '/instances')).json().items.map((i: Instance) => i.name);
    expect(names).toEqual(['app-1', 'app-2', 'app-3', 'bee-1']);
  });
});
