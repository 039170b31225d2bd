import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OperationCompletedPayload } from '../../../contracts/instances';
import { insertBackup } from '../../../server/db/backups';
import { addMembers, createGroup } from '../../../server/db/groups';
import { insertInstance } from '../../../server/db/instances';
import type { Engine } from '../../../server/engines/engine';
import { pathRedactor } from '../../../server/instances/redact';
import { addUser, cookieLogin, expectProblem, origin, setup, type Harness } from '../helpers';
import { inertEngine } from './inertEngine';

// What a regular user must not learn about other groups or the host: another group's instances in
// the creation graph, whether a name belongs to an instance they cannot see, and the server's paths
// quoted by engine errors (admins see those whole).

let h: Harness;
let baseUrl: string;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-scoping-leaks-'));
fs.chmodSync(dataDir, 0o711);
const cookies = { admin: '', member: '', outsider: '' };
let groupA: string;
let groupB: string;

/** pg_ctl's way of failing: it quotes the instance's files. */
const failingPg: Engine = {
  ...inertEngine('pg'),
  start: async (rt) => {
    throw new Error(`pg_ctl: could not start server\nExamine the log output: ${rt.dir}/data/log/startup.log`);
  },
  probe: async (rt) => ({
    running: false,
    level: 'error',
    checks: [{ name: 'process', level: 'error', message: `could not open file "${rt.dir}/data/postmaster.pid": No such file or directory` }],
  }),
};

let counter = 0;
async function row(name: string, groupId: string | null, overrides: Partial<Parameters<typeof insertInstance>[1]> = {}) {
  const id = randomUUID();
  await insertInstance(h.db, {
    id, name, type: 'pg', status: 'stopped', desired_state: 'stopped', status_reason: null, health_level: 'good',
    health_checks: '[]', group_id: groupId, engine_version: '15.0', port: 32000 + ++counter, peer_port: null, description: '',
    created_at: '2030-01-02T00:00:00.000Z', created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
    ...overrides,
  });
  return id;
}

const call = (cookie: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  h.app.inject({ method, url, headers: { cookie, origin }, ...((payload ?? method === 'POST') && { payload: payload ?? {} }) });

beforeAll(async () => {
  h = await setup({ config: { dataDir }, engines: { pg: failingPg, etcd: inertEngine('etcd') }, supervise: false });
  await addUser(h.db, 'admin@example.com', 'admin');
  const member = (await addUser(h.db, 'member@example.com')).id;
  await addUser(h.db, 'outsider@example.com');
  groupA = (await createGroup(h.db, { name: 'payments' }, h.clock.now())).id;
  groupB = (await createGroup(h.db, { name: 'search' }, h.clock.now())).id;
  await addMembers(h.db, groupA, [member], h.clock.now());
  cookies.admin = await cookieLogin(h, 'admin@example.com');
  cookies.member = await cookieLogin(h, 'member@example.com');
  cookies.outsider = await cookieLogin(h, 'outsider@example.com');
  baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('GET /instances/graphs', () => {
  it('counts only the instances of the caller’s groups; admins count all', async () => {
    await row('graph-a', groupA, { created_at: '2033-03-01T10:00:00.000Z' });
    await row('graph-b', groupB, { created_at: '2033-03-01T11:00:00.000Z', type: 'etcd', peer_port: 33001 });
    await row('graph-none', null, { created_at: '2033-03-02T10:00:00.000Z' });
    await row('graph-b-before', groupB, { created_at: '2033-01-01T10:00:00.000Z' });
    const graph = async (cookie: string) => {
      const res = await call(cookie, 'GET', '/instances/graphs?from=2033-03-01&to=2033-03-02&bucket=day');
      expect(res.statusCode).toBe(200);
      return res.json().points.map((p: { bucket: string; pg: number; etcd: number; cumulative: number }) => [p.bucket, p.pg, p.etcd, p.cumulative]);
    };
    const before = (await call(cookies.admin, 'GET', '/instances?pageSize=200')).json().items.filter((i: { createdAt: string }) => i.createdAt < '2033-03-01').length;
    expect(await graph(cookies.admin)).toEqual([['2033-03-01', 1, 1, before + 2], ['2033-03-02', 1, 0, before + 3]]);
    const memberBefore = (await call(cookies.member, 'GET', '/instances?pageSize=200')).json().items.filter((i: { createdAt: string }) => i.createdAt < '2033-03-01').length;
    expect(await graph(cookies.member)).toEqual([['2033-03-01', 1, 0, memberBefore + 1], ['2033-03-02', 0, 0, memberBefore + 1]]);
    expect(await graph(cookies.outsider)).toEqual([['2033-03-01', 0, 0, 0], ['2033-03-02', 0, 0, 0]]);
  });
});

describe('a taken instance name', () => {
  it('answers the same to validate-name whether or not the caller can see the instance holding it', async () => {
    await row('visible-name', groupA);
    await row('hidden-name', groupB);
    const visible = await call(cookies.member, 'POST', '/instances/validate-name', { name: 'visible-name' });
    const hidden = await call(cookies.member, 'POST', '/instances/validate-name', { name: 'hidden-name' });
    expect(visible.json()).toEqual({ valid: false, reason: 'This name is not available.' });
    expect(hidden.statusCode).toBe(visible.statusCode);
    expect(hidden.body).toBe(visible.body);
  });

  it('is refused by POST /instances with the same text either way', async () => {
    const create = (name: string) => call(cookies.member, 'POST', '/instances', { name, type: 'pg', groupId: groupA });
    const visible = expectProblem(await create('visible-name'), 400);
    const hidden = expectProblem(await create('hidden-name'), 400);
    expect(visible.errors).toEqual({ name: ['This name is not available.'] });
    // Alike but for the id each answer gives its own request.
    expect({ ...hidden, requestId: undefined }).toEqual({ ...visible, requestId: undefined });
  });
});

describe('server paths in engine errors', () => {
  let instanceId: string;
  const opened: HubConnection[] = [];
  afterAll(() => Promise.all(opened.map((c) => c.stop().catch(() => undefined))));

  async function listen(cookie: string) {
    const connection = new HubConnectionBuilder()
      .withUrl(`${baseUrl}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: cookie, Origin: origin } })
      .configureLogging(LogLevel.None)
      .build();
    opened.push(connection);
    const completed: OperationCompletedPayload[] = [];
    const statuses: { statusReason: string | null; health: { checks: { message: string }[] } }[] = [];
    connection.on('OperationCompleted', (payload: OperationCompletedPayload) => completed.push(payload));
    connection.on('InstanceStatusChanged', (payload: (typeof statuses)[number]) => statuses.push(payload));
    await connection.start();
    return { connection, completed, statuses };
  }

  beforeAll(async () => {
    instanceId = await row('paths', groupA);
    await insertBackup(h.db, {
      id: randomUUID(), instance_id: instanceId, instance_name: 'paths', engine: 'pg', kind: 'database', trigger: 'manual', status: 'failed',
      started_at: h.clock.now().toISOString(), finished_at: h.clock.now().toISOString(), size_bytes: null, sha256: null, format: 'pending',
      engine_version: '15.0', error: `pg_dump: error: could not write to "${dataDir}/instances/${instanceId}/staging/base.dump"`,
      storage_key: null, contents: null, verification: null, created_by: null,
    });
  });

  it('shows a member the operation error, status reason and health with the instance folder as <instance>; an admin the full text', async () => {
    const member = await listen(cookies.member);
    const admin = await listen(cookies.admin);
    for (const { connection } of [member, admin]) await connection.invoke('JoinInstance', instanceId);

    expect((await call(cookies.member, 'POST', `/instances/${instanceId}/start`)).statusCode).toBe(202);
    await h.app.instances.idle();
    await waitFor(() => member.completed.length > 0 && admin.completed.length > 0 && member.statuses.length > 0);

    const folder = path.join(dataDir, 'instances', instanceId);
    expect(admin.completed[0].error).toContain(`${folder}/data/log/startup.log`);
    expect(member.completed[0].error).toBe('pg_ctl: could not start server\nExamine the log output: <instance>/data/log/startup.log');
    expect(JSON.stringify(member.statuses)).not.toContain(dataDir);
    expect(JSON.stringify(admin.statuses)).toContain(folder);

    const asMember = (await call(cookies.member, 'GET', `/instances/${instanceId}`)).json();
    expect(asMember.statusReason).toBe(member.completed[0].error);
    expect(asMember.health.checks).toEqual([{ name: 'start', level: 'error', message: member.completed[0].error }]);
    const asAdmin = (await call(cookies.admin, 'GET', `/instances/${instanceId}`)).json();
    expect(asAdmin.health.checks[0].message).toContain(`${folder}/data/log/startup.log`);
    const listed = (await call(cookies.member, 'GET', '/instances?search=paths')).json();
    expect(JSON.stringify(listed)).not.toContain(dataDir);
    expect(JSON.stringify(listed)).toContain('<instance>/data/log/startup.log');
  });

  it('shows a member a failed backup’s error without the data dir', async () => {
    const page = (await call(cookies.member, 'GET', `/instances/${instanceId}/backups/database`)).json();
    expect(page.items.map((b: { error: string }) => b.error)).toEqual(['pg_dump: error: could not write to "<instance>/staging/base.dump"']);
    const adminPage = (await call(cookies.admin, 'GET', `/instances/${instanceId}/backups/database`)).json();
    expect(adminPage.items[0].error).toContain(dataDir);
  });
});

describe('pathRedactor', () => {
  it('hides the data dir at path boundaries only, through a symlinked spelling too', () => {
    const real = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-redact-'));
    const link = `${real}-link`;
    fs.symlinkSync(real, link);
    try {
      const redact = pathRedactor(link);
      expect(redact.text(`${link}/instances/abc-123/data/pg_hba.conf`)).toBe('<instance>/data/pg_hba.conf');
      expect(redact.text(`"${real}/instances/abc-123": busy`)).toBe('"<instance>": busy');
      expect(redact.text(`${link}/backups/x.tar and ${link}`)).toBe('<data>/backups/x.tar and <data>');
      expect(redact.text(`${link}2/other`)).toBe(`${link}2/other`);
      expect(redact.value({ a: [`${link}/secrets`], n: 3, b: null })).toEqual({ a: ['<data>/secrets'], n: 3, b: null });
    } finally {
      fs.rmSync(link);
      fs.rmSync(real, { recursive: true });
    }
  });
});

async function waitFor(predicate: () => boolean) {
  for (let i = 0; i < 250 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!predicate()) throw new Error('condition not met in time');
}
