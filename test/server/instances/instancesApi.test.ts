import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Instance } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { buildApp } from '../../../server/app';
import { addMembers, createGroup } from '../../../server/db/groups';
import { deleteInstanceRow, findInstance, insertInstance } from '../../../server/db/instances';
import { insertLogEntries } from '../../../server/db/logs';
import { debianEngineBinaries } from '../../../server/engines/detect';
import type { HubEvent } from '../../../server/hub/bus';
import { InProcessBus } from '../../../server/hub/bus';
import { addUser, cookieLogin, expectProblem, origin, setup, testConfig, type Harness } from '../helpers';
import { inertEngine } from './inertEngine';

// The instance list, names, groups, graphs, logs and event audiences: rules of the control plane,
// with an engine that runs nothing (pgInstance/etcdInstance tests run the real ones).

let h: Harness;
const published: HubEvent[] = [];
let cookies: { admin: string; member: string; outsider: string };
let groupA: string;
let groupB: string;
let memberId: string;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-instances-api-'));
fs.chmodSync(dataDir, 0o711);

let counter = 0;
async function row(name: string, overrides: Partial<Parameters<typeof insertInstance>[1]> = {}) {
  const id = randomUUID();
  await insertInstance(h.db, {
    id, name, type: 'pg', status: 'running', desired_state: 'running', status_reason: null, health_level: 'good',
    health_checks: '[]', group_id: null, engine_version: '15.0', port: 30000 + ++counter, peer_port: null, description: '',
    created_at: '2030-01-02T00:00:00.000Z', created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
    ...overrides,
  });
  return id;
}

const call = (cookie: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  h.app.inject({ method, url, headers: { cookie, origin }, ...(payload && { payload }) });
const names = (res: { json(): unknown }) => (res.json() as PageOf<Instance>).items.map((i) => i.name);

beforeAll(async () => {
  const bus = new InProcessBus();
  bus.subscribe((event) => published.push(event));
  h = await setup({ config: { dataDir }, engines: { pg: inertEngine('pg'), etcd: inertEngine('etcd') }, supervise: false, bus });
  await addUser(h.db, 'admin@example.com', 'admin');
  memberId = (await addUser(h.db, 'member@example.com')).id;
  await addUser(h.db, 'outsider@example.com');
  groupA = (await createGroup(h.db, { name: 'payments' }, h.clock.now())).id;
  groupB = (await createGroup(h.db, { name: 'search' }, h.clock.now())).id;
  await addMembers(h.db, groupA, [memberId], h.clock.now());
  cookies = {
    admin: await cookieLogin(h, 'admin@example.com'),
    member: await cookieLogin(h, 'member@example.com'),
    outsider: await cookieLogin(h, 'outsider@example.com'),
  };
  await row('orders', { group_id: groupA, description: 'Order history', created_at: '2030-01-06T10:00:00.000Z' });
  await row('ledger', { group_id: groupA, status: 'stopped', health_level: 'warn', created_at: '2030-01-07T10:00:00.000Z' });
  await row('config-store', { group_id: groupA, type: 'etcd', peer_port: 31000, created_at: '2030-01-14T10:00:00.000Z' });
  await row('catalog', { group_id: groupB, created_at: '2030-02-01T10:00:00.000Z' });
  await row('scratch', { created_at: '2029-12-31T10:00:00.000Z' });
});
afterAll(async () => {
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('GET /instances', () => {
  it('shows admins every instance and regular users only their groups’', async () => {
    expect(names(await call(cookies.admin, 'GET', '/instances'))).toEqual(['catalog', 'config-store', 'ledger', 'orders', 'scratch']);
    expect(names(await call(cookies.member, 'GET', '/instances'))).toEqual(['config-store', 'ledger', 'orders']);
    expect((await call(cookies.outsider, 'GET', '/instances')).json()).toEqual({ items: [], total: 0, page: 1, pageSize: 25 });
  });

  it('filters by type, status, health, group and text, sorts and pages', async () => {
    expect(names(await call(cookies.admin, 'GET', '/instances?type=etcd'))).toEqual(['config-store']);
    expect(names(await call(cookies.admin, 'GET', '/instances?status=stopped'))).toEqual(['ledger']);
    expect(names(await call(cookies.admin, 'GET', '/instances?health=warn'))).toEqual(['ledger']);
    expect(names(await call(cookies.admin, 'GET', '/instances?groupId=none'))).toEqual(['scratch']);
    expect(names(await call(cookies.admin, 'GET', `/instances?groupId=${groupB}`))).toEqual(['catalog']);
    expect(names(await call(cookies.admin, 'GET', '/instances?search=HISTORY'))).toEqual(['orders']);
    expect(names(await call(cookies.admin, 'GET', '/instances?sort=-createdAt&pageSize=2&page=2'))).toEqual(['ledger', 'orders']);
    const page = (await call(cookies.admin, 'GET', '/instances?pageSize=2&page=3')).json();
    expect(page).toMatchObject({ total: 5, page: 3, pageSize: 2 });
    expect(page.items[0]).toMatchObject({ name: 'scratch', groupName: null, host: '127.0.0.1' });
    expectProblem(await call(cookies.admin, 'GET', '/instances?sort=port'), 400);
    expectProblem(await call(cookies.admin, 'GET', '/instances?status=sleeping'), 400);
  });

  it('tells the total on full, short, exact and past-the-end pages, filtered or not', async () => {
    const page = async (cookie: string, query: string) => {
      const { items, ...rest } = (await call(cookie, 'GET', `/instances?${query}`)).json() as PageOf<Instance>;
      return { names: items.map((i) => i.name), ...rest };
    };
    expect(await page(cookies.admin, 'pageSize=2')).toEqual({ names: ['catalog', 'config-store'], total: 5, page: 1, pageSize: 2 });
    expect(await page(cookies.admin, 'pageSize=5')).toMatchObject({ total: 5 });
    expect(await page(cookies.admin, 'pageSize=4&page=2')).toEqual({ names: ['scratch'], total: 5, page: 2, pageSize: 4 });
    expect(await page(cookies.admin, 'pageSize=2&page=9')).toEqual({ names: [], total: 5, page: 9, pageSize: 2 });
    expect(await page(cookies.admin, 'pageSize=5&page=2')).toEqual({ names: [], total: 5, page: 2, pageSize: 5 });
    expect(await page(cookies.member, 'pageSize=1&status=running')).toEqual({ names: ['config-store'], total: 2, page: 1, pageSize: 1 });
    expect(await page(cookies.member, `pageSize=1&page=3&groupId=${groupA}`)).toEqual({ names: ['orders'], total: 3, page: 3, pageSize: 1 });
    expect(await page(cookies.member, `groupId=${groupB}`)).toEqual({ names: [], total: 0, page: 1, pageSize: 25 });
    expect(await page(cookies.admin, `groupId=${groupA}&status=running&search=OR`)).toMatchObject({ names: ['config-store', 'orders'], total: 2 });

    const groupPage = async (query: string) => {
      const { items, ...rest } = (await call(cookies.member, 'GET', `/groups/${groupA}/instances?${query}`)).json() as PageOf<Instance>;
      return { names: items.map((i) => i.name), ...rest };
    };
    expect(await groupPage('pageSize=2')).toEqual({ names: ['config-store', 'ledger'], total: 3, page: 1, pageSize: 2 });
    expect(await groupPage('pageSize=2&page=2')).toEqual({ names: ['orders'], total: 3, page: 2, pageSize: 2 });
    expect(await groupPage('pageSize=3&page=2')).toEqual({ names: [], total: 3, page: 2, pageSize: 3 });
  });

  it('sends each instance exactly as the handler made it: the response schema drops or changes nothing', async () => {
    const id = await row('schema-check', {
      group_id: groupB, status: 'offline', status_reason: 'exited with code 1', health_level: 'error', description: 'Ünïcode "quoted" \\ text',
      health_checks: JSON.stringify([{ name: 'reachable', level: 'error', message: 'connection refused' }]),
      last_backup_at: '2030-01-03T00:00:00.000Z', created_by: 'admin@example.com', operation_kind: 'restart', operation_started_at: '2030-01-04T00:00:00.000Z',
    });
    try {
      const sent = (await call(cookies.admin, 'GET', '/instances?search=schema-check')).json() as PageOf<Instance>;
      const made = await findInstance(h.db, id);
      expect(sent.items).toEqual([JSON.parse(JSON.stringify(made))]);
      expect(sent.items[0]).toMatchObject({ groupName: 'search', sizeBytes: null, operation: { kind: 'restart' } });
    } finally {
      await deleteInstanceRow(h.db, id);
    }
  });
});

describe('names and creation', () => {
  it.each([
    ['ab', 'at least 3'],
    ['9lives', 'start with a lower-case letter'],
    ['Orders', 'start with a lower-case letter'],
    ['my_db', 'only hold lower-case letters'],
    ['trailing-', 'must not end with -'],
    ['orders', 'This name is not available.'],
  ])('validate-name refuses %s', async (name, reason) => {
    const res = await call(cookies.member, 'POST', '/instances/validate-name', { name });
    expect(res.json().valid).toBe(false);
    expect(res.json().reason).toContain(reason);
  });

  it('validate-name accepts a fresh name', async () => {
    expect((await call(cookies.member, 'POST', '/instances/validate-name', { name: 'fresh-db-1' })).json()).toEqual({ valid: true });
  });

  it('makes a regular user pick one of their groups, and refuses others’', async () => {
    expectProblem(await call(cookies.member, 'POST', '/instances', { name: 'nogroup', type: 'pg' }), 400);
    const other = expectProblem(await call(cookies.member, 'POST', '/instances', { name: 'elsewhere', type: 'pg', groupId: groupB }), 400);
    expect(other.errors?.groupId).toBeDefined();
    const ok = await call(cookies.member, 'POST', '/instances', { name: 'members-own', type: 'pg', groupId: groupA });
    expect(ok.statusCode).toBe(202);
    expect(ok.json()).toMatchObject({ status: 'unInitialized', groupId: groupA, groupName: 'payments', createdBy: 'member@example.com' });
    await h.app.instances.idle();
  });

  it('refuses an invalid name with the reason on the field and keeps nothing', async () => {
    const problem = expectProblem(await call(cookies.admin, 'POST', '/instances', { name: 'Bad Name', type: 'pg' }), 400);
    expect(problem.errors?.name?.[0]).toMatch(/lower-case/);
    expectProblem(await call(cookies.admin, 'POST', '/instances', { name: 'good-name', type: 'mysql' }), 400);
    expect(names(await call(cookies.admin, 'GET', '/instances?search=bad'))).toEqual([]);
  });

  it('names the Debian package when an engine is not installed', async () => {
    const app = buildApp(testConfig({ dataDir, engines: { ...debianEngineBinaries, etcdBin: '/nonexistent/etcd' } }), {
      db: h.db,
      logger: false,
      supervise: false,
    });
    const res = await app.inject({ method: 'POST', url: '/instances', headers: { cookie: cookies.admin, origin }, payload: { name: 'no-etcd', type: 'etcd' } });
    const problem = expectProblem(res, 503);
    expect(problem.detail).toContain('install the Debian package etcd-server');
    await app.close();
  });
});

describe('PUT /instances/{id}', () => {
  it('lets members change the description and only admins move an instance between groups', async () => {
    const id = await row('movable', { group_id: groupA });
    expect((await call(cookies.member, 'PUT', `/instances/${id}`, { description: 'mine' })).json().description).toBe('mine');
    expectProblem(await call(cookies.member, 'PUT', `/instances/${id}`, { groupId: groupB }), 403);
    expect((await call(cookies.admin, 'PUT', `/instances/${id}`, { groupId: groupB })).json()).toMatchObject({ groupId: groupB, groupName: 'search' });
    expectProblem(await call(cookies.member, 'GET', `/instances/${id}`), 404);
  });
});

describe('event audiences', () => {
  it('sends a group’s instance events to admins and that group’s members only', async () => {
    const id = await row('audible', { group_id: groupA });
    published.length = 0;
    await call(cookies.admin, 'PUT', `/instances/${id}`, { description: 'changed' });
    const event = published.find((e) => e.event === 'InstanceUpdated');
    expect(event?.audience).toEqual({ kind: 'scoped', groups: ['instances', `instance:${id}`], userIds: [memberId] });
  });
});

describe('GET /instances/graphs', () => {
  it('buckets creations by week with zeros and the running total', async () => {
    // Creations in 2031 only, so the rows of the other tests (2030) count toward the running total alone.
    const before = (await call(cookies.admin, 'GET', '/instances')).json().total;
    await row('week-one-a', { created_at: '2031-01-06T10:00:00.000Z' });
    await row('week-one-b', { created_at: '2031-01-07T10:00:00.000Z' });
    await row('week-two', { created_at: '2031-01-14T10:00:00.000Z', type: 'etcd', peer_port: 31001 });
    await row('week-four', { created_at: '2031-02-01T10:00:00.000Z' });
    const res = await call(cookies.admin, 'GET', '/instances/graphs?from=2031-01-06&to=2031-01-20&bucket=week');
    expect(res.json().points.map((p: { bucket: string; pg: number; etcd: number; cumulative: number }) => [p.bucket, p.pg, p.etcd, p.cumulative])).toEqual([
      ['2031-01-06', 2, 0, before + 2],
      ['2031-01-13', 0, 1, before + 3],
      ['2031-01-20', 0, 0, before + 3],
    ]);
    const pgOnly = (await call(cookies.admin, 'GET', '/instances/graphs?from=2031-01-01&to=2031-02-28&bucket=month&type=pg')).json();
    expect(pgOnly.points.map((p: { bucket: string; total: number }) => [p.bucket, p.total])).toEqual([['2031-01-01', 2], ['2031-02-01', 1]]);
    expectProblem(await call(cookies.admin, 'GET', '/instances/graphs?from=2030-02-01&to=2030-01-01'), 400);
    expectProblem(await call(cookies.admin, 'GET', '/instances/graphs?from=yesterday&to=2030-01-01'), 400);
  });
});

describe('GET /instances/{id}/logs', () => {
  it('filters by level, handler, text and time and pages by cursor', async () => {
    const id = await row('chatty', { group_id: groupA });
    await insertLogEntries(
      h.db,
      Array.from({ length: 30 }, (_, i) => ({
        timestamp: new Date(Date.UTC(2030, 0, 1, 0, i)).toISOString(),
        level: i % 10 === 0 ? ('error' as const) : ('information' as const),
        instanceId: id,
        handler: i % 2 ? 'postgres' : 'supervisor',
        message: `line ${i}`,
      })),
    );
    const errors = (await call(cookies.member, 'GET', `/instances/${id}/logs?levels=error,fatal`)).json();
    expect(errors.items.map((e: { message: string }) => e.message)).toEqual(['line 20', 'line 10', 'line 0']);
    const first = (await call(cookies.member, 'GET', `/instances/${id}/logs?handler=postgres&limit=10`)).json();
    expect(first.items).toHaveLength(10);
    const rest = (await call(cookies.member, 'GET', `/instances/${id}/logs?handler=postgres&limit=10&cursor=${first.nextCursor}`)).json();
    expect(rest.items.map((e: { message: string }) => e.message)).toEqual(['line 9', 'line 7', 'line 5', 'line 3', 'line 1']);
    expect(rest.nextCursor).toBeNull();
    const window = (await call(cookies.member, 'GET', `/instances/${id}/logs?from=2030-01-01T00:05:00Z&to=2030-01-01T00:06:00Z`)).json();
    expect(window.items.map((e: { message: string }) => e.message)).toEqual(['line 6', 'line 5']);
    expect((await call(cookies.member, 'GET', `/instances/${id}/logs?search=ne%2029`)).json().items).toHaveLength(1);
    expectProblem(await call(cookies.member, 'GET', `/instances/${id}/logs?levels=loud`), 400);
    expect((await call(cookies.member, 'GET', `/instances/${id}/logs/unique-handlers`)).json()).toEqual(['postgres', 'supervisor']);
    expectProblem(await call(cookies.outsider, 'GET', `/instances/${id}/logs`), 404);
  });
});
