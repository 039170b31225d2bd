import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Group } from '../../../contracts/groups';
import type { Instance } from '../../../contracts/instances';
import { addMembers, createGroup, findGroup, listGroups, updateGroup } from '../../../server/db/groups';
import { defaultLimits, instanceLimits, type ProcessLimits } from '../../../server/engines/confinement';
import type { Engine } from '../../../server/engines/engine';
import { addUser, cookieLogin, expectProblem, origin, setup, type Harness } from '../helpers';
import { inertEngine } from './inertEngine';

// A group's process limits (DESIGN §11): set by admins, kept in the store, and written for every
// instance of the group where its processes are started from. The engine here runs nothing but
// notes the limits each start would get; the real limits of a real engine are in processLimits.test.ts.

const mebibyte = 1024 ** 2;
const tebibyte = 1024 ** 4;

let h: Harness;
let dataDir: string;
let cookies: { admin: string; member: string };
let groupId: string;
/** By instance id: the limits its engine's starts were given, in order. */
const starts = new Map<string, ProcessLimits[]>();

/** The inert engine, noting at each start (a restart and a restore start too) the limits the instance's processes would get. */
function noting(type: 'pg' | 'etcd'): Engine {
  const engine = inertEngine(type);
  const note = (rt: { id: string; dir: string }) => starts.set(rt.id, [...(starts.get(rt.id) ?? []), instanceLimits(rt.dir)]);
  return {
    ...engine,
    start: async (rt) => {
      note(rt);
      await engine.start(rt);
    },
    restart: async (rt) => {
      note(rt);
      await engine.restart(rt);
    },
    restoreDatabase: async (dir, rt, parameters) => {
      note(rt);
      await engine.restoreDatabase(dir, rt, parameters);
    },
  };
}

beforeEach(async () => {
  starts.clear();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-group-limits-'));
  fs.chmodSync(dataDir, 0o711);
  h = await setup({ config: { dataDir }, engines: { pg: noting('pg'), etcd: noting('etcd') }, supervise: false });
  await addUser(h.db, 'admin@example.com', 'admin');
  const member = await addUser(h.db, 'member@example.com');
  groupId = (await createGroup(h.db, { name: 'payments' }, h.clock.now())).id;
  await addMembers(h.db, groupId, [member.id], h.clock.now());
  cookies = { admin: await cookieLogin(h, 'admin@example.com'), member: await cookieLogin(h, 'member@example.com') };
});
afterEach(async () => {
  await h.app.instances.idle();
  await h.app.backups.idle();
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const call = (cookie: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  h.app.inject({ method, url, headers: { cookie, origin }, ...(payload && { payload }) });
const setLimits = (limits: object, cookie = cookies.admin, id = groupId) => call(cookie, 'PUT', `/groups/${id}`, { name: 'payments', limits });
const group = async (id = groupId) => (await call(cookies.admin, 'GET', `/groups/${id}`)).json() as Group;
const limitsOf = (instance: Instance) => instanceLimits(path.join(dataDir, 'instances', instance.id));

async function created(body: object): Promise<Instance> {
  const res = await call(cookies.admin, 'POST', '/instances', { type: 'pg', ...body });
  expect(res.statusCode).toBe(202);
  await h.app.instances.idle();
  return res.json() as Instance;
}

describe('setting a group’s process limits', () => {
  it('answers them with the server’s defaults, keeps them when absent and clears a field with null', async () => {
    expect(await group()).toMatchObject({
      limits: { maxProcesses: null, maxOpenFiles: null, maxMemoryBytes: null },
      defaultLimits,
    });
    const set = await setLimits({ maxProcesses: 300, maxOpenFiles: 1000, maxMemoryBytes: 2048 * mebibyte });
    expect(set.statusCode).toBe(200);
    expect(set.json().limits).toEqual({ maxProcesses: 300, maxOpenFiles: 1000, maxMemoryBytes: 2048 * mebibyte });
    // Neither a rename nor a quota touches them.
    await call(cookies.admin, 'PUT', `/groups/${groupId}`, { name: 'payments-eu', quota: { maxInstances: 3 } });
    expect((await call(cookies.member, 'GET', `/groups/${groupId}`)).json()).toMatchObject({
      name: 'payments-eu',
      limits: { maxProcesses: 300, maxOpenFiles: 1000, maxMemoryBytes: 2048 * mebibyte },
    });
    // Inside, an absent or null field is the default.
    expect((await setLimits({ maxOpenFiles: null, maxMemoryBytes: tebibyte })).json().limits).toEqual({
      maxProcesses: null,
      maxOpenFiles: null,
      maxMemoryBytes: tebibyte,
    });
    const [entry] = await h.db.selectFrom('audit_entries').select(['action', 'detail']).orderBy('at', 'desc').limit(1).execute();
    expect(entry.action).toBe('groups.update');
    expect(JSON.parse(entry.detail!)).toMatchObject({ limits: { maxProcesses: null, maxOpenFiles: null, maxMemoryBytes: tebibyte } });
  });

  it('accepts the bounds themselves, on creation too', async () => {
    const lowest = { maxProcesses: 32, maxOpenFiles: 256, maxMemoryBytes: 256 * mebibyte };
    expect((await setLimits(lowest)).json().limits).toEqual(lowest);
    const highest = { maxProcesses: 65_536, maxOpenFiles: 1_048_576, maxMemoryBytes: tebibyte };
    const made = await call(cookies.admin, 'POST', '/groups', { name: 'big', limits: highest });
    expect(made.statusCode).toBe(201);
    expect(made.json().limits).toEqual(highest);
  });

  it('refuses limits from a regular member (403) and a value out of bounds with a 400 naming the field', async () => {
    expectProblem(await setLimits({ maxProcesses: 100 }, cookies.member), 403);
    const refused: [object, string][] = [
      [{ maxProcesses: 31 }, 'limits.maxProcesses'],
      [{ maxProcesses: 65_537 }, 'limits.maxProcesses'],
      [{ maxProcesses: 100.5 }, 'limits.maxProcesses'],
      [{ maxProcesses: 'many' }, 'limits.maxProcesses'],
      [{ maxOpenFiles: 255 }, 'limits.maxOpenFiles'],
      [{ maxOpenFiles: 1_048_577 }, 'limits.maxOpenFiles'],
      [{ maxMemoryBytes: 256 * mebibyte - 1 }, 'limits.maxMemoryBytes'],
      [{ maxMemoryBytes: tebibyte + 1 }, 'limits.maxMemoryBytes'],
      [{ maxMemoryBytes: 300 * mebibyte + 0.5 }, 'limits.maxMemoryBytes'],
      [{ maxProcesses: 100, cpus: 4 }, 'limits.cpus'],
    ];
    for (const [limits, field] of refused) {
      const problem = expectProblem(await setLimits(limits), 400) as { errors: Record<string, string[]> };
      expect(Object.keys(problem.errors)).toEqual([field]);
    }
    expect((await group()).limits).toEqual({ maxProcesses: null, maxOpenFiles: null, maxMemoryBytes: null });
  });

  it('keeps them in the store, a tebibyte of memory included', async () => {
    const limits = { maxProcesses: 1000, maxOpenFiles: 100_000, maxMemoryBytes: tebibyte };
    const made = await createGroup(h.db, { name: 'store', limits }, h.clock.now());
    expect(made.limits).toEqual(limits);
    expect((await findGroup(h.db, made.id))?.limits).toEqual(limits);
    await updateGroup(h.db, made.id, { name: 'store', limits: { maxProcesses: 64, maxOpenFiles: null, maxMemoryBytes: null } });
    // A change without limits leaves them.
    await updateGroup(h.db, made.id, { name: 'stored' });
    const listed = await listGroups(h.db, { ids: [made.id], sort: 'name', window: { page: 1, pageSize: 10 } });
    expect(listed.items[0].limits).toEqual({ maxProcesses: 64, maxOpenFiles: null, maxMemoryBytes: null });
  });
});

describe('the limits of a group’s instances', () => {
  const tight = { maxProcesses: 300, maxOpenFiles: 1000, maxMemoryBytes: 512 * mebibyte };

  it('are kept before the first start of an instance made, cloned or restored from a backup into the group', async () => {
    await setLimits(tight);
    const made = await created({ name: 'made', groupId });
    expect(starts.get(made.id)).toEqual([tight]);

    const clone = (await call(cookies.member, 'POST', `/instances/${made.id}/clone`, { name: 'copied' })).json() as Instance;
    await h.app.instances.idle();
    expect(starts.get(clone.id)).toEqual([tight]);

    expect((await call(cookies.member, 'POST', `/instances/${made.id}/backups/database/backup`, {})).statusCode).toBe(202);
    await h.app.backups.idle();
    const [backup] = (await call(cookies.member, 'GET', `/instances/${made.id}/backups/database`)).json().items as { id: string; status: string }[];
    expect(backup.status).toBe('succeeded');
    // The scratch copy a verification restores into runs the tenant's code: it gets the group's limits too.
    expect((await call(cookies.member, 'POST', `/instances/${made.id}/backups/${backup.id}/verify`, {})).statusCode).toBe(202);
    await h.app.backups.idle();
    const scratches = [...starts].filter(([id]) => id.startsWith('scratch-'));
    expect(scratches.map(([, limits]) => limits)).toEqual([[tight]]);
    expect(fs.readdirSync(path.join(dataDir, 'instances', '.limits')).filter((name) => name.startsWith('.scratch-'))).toEqual([]);
    const restored = await call(cookies.member, 'POST', `/instances/${made.id}/clone`, { name: 'restored', backupId: backup.id });
    expect(restored.statusCode).toBe(202);
    await h.app.instances.idle();
    expect(starts.get(restored.json().id)).toEqual([tight]);
  });

  it('follow a change of the group’s limits and a move; deleting the group or the instance forgets them', async () => {
    const other = (await createGroup(h.db, { name: 'ledger', limits: { maxProcesses: 64, maxOpenFiles: null, maxMemoryBytes: null } }, h.clock.now())).id;
    const first = await created({ name: 'first', groupId });
    const second = await created({ name: 'second', groupId });
    expect(limitsOf(first)).toEqual(defaultLimits);

    await setLimits(tight);
    expect([limitsOf(first), limitsOf(second)]).toEqual([tight, tight]);
    // Taken at the next start.
    expect((await call(cookies.admin, 'POST', `/instances/${first.id}/restart`, {})).statusCode).toBe(202);
    await h.app.instances.idle();
    expect(starts.get(first.id)).toEqual([defaultLimits, tight]);

    expect((await call(cookies.admin, 'PUT', `/instances/${first.id}`, { groupId: other })).statusCode).toBe(200);
    expect(limitsOf(first)).toEqual({ ...defaultLimits, maxProcesses: 64 });
    expect((await call(cookies.admin, 'PUT', `/instances/${first.id}`, { groupId: null })).statusCode).toBe(200);
    expect(limitsOf(first)).toEqual(defaultLimits);

    // A deleted group's instances are in no group: the defaults.
    expect((await call(cookies.admin, 'DELETE', `/groups/${groupId}?moveInstances=true`)).statusCode).toBe(204);
    expect(limitsOf(second)).toEqual(defaultLimits);

    await call(cookies.admin, 'PUT', `/instances/${second.id}`, { groupId: other });
    expect(limitsOf(second)).toEqual({ ...defaultLimits, maxProcesses: 64 });
    expect((await call(cookies.admin, 'DELETE', `/instances/${second.id}?force=true`)).statusCode).toBe(200);
    expect(limitsOf(second)).toEqual(defaultLimits);
  });
});
