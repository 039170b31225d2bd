import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AllBackupsPage, Backup, BackupsSummary } from '../../../contracts/backups';
import type { PageOf } from '../../../contracts/page';
import { insertBackup } from '../../../server/db/backups';
import { addMembers, createGroup } from '../../../server/db/groups';
import { insertInstance } from '../../../server/db/instances';
import { InProcessBus, type HubEvent } from '../../../server/hub/bus';
import { addUser, cookieLogin, expectProblem, origin, setup, type Harness } from '../helpers';
import { inertEngine } from '../instances/inertEngine';

// Who sees which backups: a member of group A sees A's instances' backups and nothing of B's, on
// every /instances/{id}/backups… route, in GET /backups and its totals, and in hub events; admins
// see everything, including backups of a deleted instance.

let h: Harness;
let baseUrl: string;
const published: HubEvent[] = [];
const engines = { pg: inertEngine('pg'), etcd: inertEngine('etcd') };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-backup-scoping-'));
fs.chmodSync(dataDir, 0o711);

const ids = { memberA: '', memberB: '' };
const cookies = { admin: '', memberA: '', memberB: '' };
let groupA: string;
let groupB: string;
/** Running instances of A and B; one more of A that is deleted, its backups kept. */
let instanceA: string;
let instanceB: string;
let deletedA: string;
let backupA: Backup;
let backupB: Backup;
let backupOfDeleted: Backup;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
function call(cookie: string, method: Method, url: string, payload?: object) {
  const body = payload ?? (method === 'POST' ? {} : undefined);
  return h.app.inject({ method, url, headers: { origin, cookie, accept: 'application/json' }, ...(body && { payload: body }) });
}

let counter = 0;
async function runningInstance(name: string, groupId: string): Promise<string> {
  const id = randomUUID();
  const port = 22000 + ++counter;
  await insertInstance(h.db, {
    id, name, type: 'pg', status: 'running', desired_state: 'running', status_reason: null, health_level: 'good',
    health_checks: '[]', group_id: groupId, engine_version: '15.0', port, peer_port: null, description: '',
    created_at: h.clock.now().toISOString(), created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
  });
  const dir = path.join(dataDir, 'instances', id);
  fs.mkdirSync(dir, { recursive: true });
  await engines.pg.start({ id, dir, port });
  return id;
}

async function take(cookie: string, instanceId: string): Promise<Backup> {
  const res = await call(cookie, 'POST', `/instances/${instanceId}/backups/database/backup`);
  expect(res.statusCode).toBe(202);
  await h.app.backups.idle();
  const page = (await call(cookies.admin, 'GET', `/instances/${instanceId}/backups/database`)).json() as PageOf<Backup>;
  return page.items.find((b) => b.id === res.json().id)!;
}

/** A failed backup record of 1 kB, as a backup cut off by a full disk leaves it. */
async function failedBackup(instanceId: string, name: string) {
  const id = randomUUID();
  await insertBackup(h.db, {
    id, instance_id: instanceId, instance_name: name, engine: 'pg', kind: 'database', trigger: 'schedule', status: 'failed',
    started_at: h.clock.now().toISOString(), finished_at: h.clock.now().toISOString(), size_bytes: 1000, sha256: null, format: 'inert',
    engine_version: '15.0', error: 'The backup storage is full.', storage_key: null, contents: null, verification: null, created_by: null,
  });
  return id;
}

beforeAll(async () => {
  const bus = new InProcessBus();
  bus.subscribe((event) => published.push(event));
  h = await setup({ config: { dataDir }, engines, supervise: false, bus });
  await addUser(h.db, 'admin@example.com', 'admin');
  ids.memberA = (await addUser(h.db, 'member-a@example.com')).id;
  ids.memberB = (await addUser(h.db, 'member-b@example.com')).id;
  groupA = (await createGroup(h.db, { name: 'payments' }, h.clock.now())).id;
  groupB = (await createGroup(h.db, { name: 'search' }, h.clock.now())).id;
  await addMembers(h.db, groupA, [ids.memberA], h.clock.now());
  await addMembers(h.db, groupB, [ids.memberB], h.clock.now());
  cookies.admin = await cookieLogin(h, 'admin@example.com');
  cookies.memberA = await cookieLogin(h, 'member-a@example.com');
  cookies.memberB = await cookieLogin(h, 'member-b@example.com');

  instanceA = await runningInstance('orders', groupA);
  instanceB = await runningInstance('catalog', groupB);
  deletedA = await runningInstance('retired', groupA);
  backupA = await take(cookies.admin, instanceA);
  backupB = await take(cookies.admin, instanceB);
  await failedBackup(instanceA, 'orders');
  await failedBackup(instanceB, 'catalog');
  await failedBackup(instanceB, 'catalog');
  backupOfDeleted = await take(cookies.admin, deletedA);
  expect((await call(cookies.admin, 'DELETE', `/instances/${deletedA}?force=true`)).statusCode).toBe(200);
  await h.app.instances.idle();
  baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a member of group A', () => {
  it('lists and summarizes the backups of A’s instance', async () => {
    const page = (await call(cookies.memberA, 'GET', `/instances/${instanceA}/backups/database`)).json() as PageOf<Backup>;
    expect(page.items.map((b) => b.status).sort()).toEqual(['failed', 'succeeded']);
    expect(page.items.map((b) => b.instanceId)).toEqual([instanceA, instanceA]);
    const summary = (await call(cookies.memberA, 'GET', `/instances/${instanceA}/backups`)).json() as BackupsSummary;
    expect(summary.database).toMatchObject({ count: 2, succeeded: 1, failed: 1 });
  });

  it('gets a working download link for A’s backup', async () => {
    const res = await call(cookies.memberA, 'GET', `/instances/${instanceA}/backups/url/${backupA.id}`);
    expect(res.statusCode).toBe(200);
    const { pathname, search } = new URL(res.json().url);
    const download = await h.app.inject({ method: 'GET', url: `${pathname}${search}` });
    expect(download.statusCode).toBe(200);
    expect(download.headers['x-checksum-sha256']).toBe(backupA.sha256);
  });

  it('takes a backup of A’s instance, recorded as theirs', async () => {
    const backup = await take(cookies.memberA, instanceA);
    expect(backup).toMatchObject({ status: 'succeeded', trigger: 'manual', createdBy: 'member-a@example.com', instanceId: instanceA });
  });

  it('gets 404 from every /instances/{id}/backups… route for B’s instance, and changes nothing there', async () => {
    const before = (await call(cookies.admin, 'GET', `/instances/${instanceB}/backups`)).json() as BackupsSummary;
    const document = (await h.app.inject({ url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(document.paths)
      .filter(([route]) => route.startsWith('/instances/{id}/backups'))
      .flatMap(([route, operations]) => Object.keys(operations).map((method) => ({ method: method.toUpperCase() as Method, route })));
    expect(routes.length).toBeGreaterThanOrEqual(12);
    // Valid bodies, so that only the scope can refuse the call.
    const bodies: Record<string, object> = {
      'PUT /instances/{id}/backups/schedule': { enabled: true, cron: '* * * * *', timeZone: 'UTC', keepLast: 1, keepDays: null },
      'POST /instances/{id}/backups/retention/preview': { keepLast: 1, keepDays: null },
      'PUT /instances/{id}/backups/{backupId}/pin': { pinned: true },
    };
    const answers: string[] = [];
    for (const { method, route } of routes) {
      const url = route.replace('{id}', instanceB).replace('{backupId}', backupB.id) + (method === 'DELETE' ? '?force=true' : '');
      const res = await call(cookies.memberA, method, url, bodies[`${method} ${route}`]);
      answers.push(`${method} ${route} ${res.statusCode}`);
      if (res.statusCode === 404) expectProblem(res, 404);
    }
    expect(answers).toEqual(routes.map(({ method, route }) => `${method} ${route} 404`));
    await h.app.backups.idle();
    expect((await call(cookies.admin, 'GET', `/instances/${instanceB}/backups`)).json()).toEqual(before);
  });

  it('gets 404 when naming B’s backup under A’s instance', async () => {
    expectProblem(await call(cookies.memberA, 'GET', `/instances/${instanceA}/backups/url/${backupB.id}`), 404);
    expectProblem(await call(cookies.memberA, 'POST', `/instances/${instanceA}/backups/${backupB.id}/verify`), 404);
    expectProblem(await call(cookies.memberA, 'DELETE', `/instances/${instanceA}/backups/database/${backupB.id}?force=true`), 404);
    expect((await call(cookies.admin, 'GET', `/instances/${instanceB}/backups/url/${backupB.id}`)).statusCode).toBe(200);
  });

  it('sees only A’s running instances’ backups in GET /backups, and totals only those', async () => {
    const page = (await call(cookies.memberA, 'GET', '/backups?pageSize=100')).json() as AllBackupsPage;
    expect(new Set(page.items.map((b) => b.instanceId))).toEqual(new Set([instanceA]));
    const ofA = (await call(cookies.admin, 'GET', `/backups?pageSize=100&instanceId=${instanceA}`)).json() as AllBackupsPage;
    expect(page.total).toBe(ofA.total);
    expect(page.totalBytes).toBe(ofA.items.reduce((sum, b) => sum + (b.sizeBytes ?? 0), 0));
    expect(page.failures).toBe(1);
    // Naming B's instance as a filter does not widen the scope.
    expect((await call(cookies.memberA, 'GET', `/backups?instanceId=${instanceB}`)).json()).toMatchObject({ items: [], total: 0, totalBytes: 0, failures: 0 });
  });

  it('no longer reaches the backups of A’s deleted instance', async () => {
    expectProblem(await call(cookies.memberA, 'GET', `/instances/${deletedA}/backups`), 404);
    expectProblem(await call(cookies.memberA, 'GET', `/instances/${deletedA}/backups/url/${backupOfDeleted.id}`), 404);
  });
});

describe('an admin', () => {
  it('sees every backup in GET /backups, those of the deleted instance marked as such', async () => {
    const page = (await call(cookies.admin, 'GET', '/backups?pageSize=100')).json() as AllBackupsPage;
    expect(new Set(page.items.map((b) => b.instanceId))).toEqual(new Set([instanceA, instanceB, deletedA]));
    const kept = page.items.find((b) => b.id === backupOfDeleted.id);
    expect(kept).toMatchObject({ instanceExists: false, instanceName: 'retired', status: 'succeeded' });
    expect(page.items.filter((b) => b.instanceId !== deletedA).every((b) => b.instanceExists)).toBe(true);
    expect(page.failures).toBe(3);
  });

  it('reaches the deleted instance’s backups through its paths, and downloads them', async () => {
    const summary = (await call(cookies.admin, 'GET', `/instances/${deletedA}/backups`)).json() as BackupsSummary;
    expect(summary.database).toMatchObject({ count: 1, succeeded: 1 });
    const res = await call(cookies.admin, 'GET', `/instances/${deletedA}/backups/url/${backupOfDeleted.id}`);
    expect(res.statusCode).toBe(200);
    const { pathname, search } = new URL(res.json().url);
    expect((await h.app.inject({ method: 'GET', url: `${pathname}${search}` })).statusCode).toBe(200);
  });

  it('cannot give a deleted instance a schedule (404, never a 500)', async () => {
    const body = { enabled: true, cron: '0 3 * * *', timeZone: 'UTC', keepLast: 3, keepDays: null };
    expect((await call(cookies.admin, 'PUT', `/instances/${deletedA}/backups/schedule`, body)).statusCode).toBe(404);
  });
});

describe('backup events', () => {
  it('go to admins and the instance’s group members, to the instance’s and the all-backups hub groups', async () => {
    published.length = 0;
    const backup = await take(cookies.memberA, instanceA);
    const completed = published.filter((e) => e.event === 'BackupCompleted');
    expect(completed.map((e) => (e.payload as { backup: Backup }).backup.id)).toEqual([backup.id]);
    expect(completed[0].audience).toEqual({ kind: 'scoped', groups: [`backups:${instanceA}`, 'backups:all'], userIds: [ids.memberA] });
    for (const event of published.filter((e) => e.event.startsWith('Backup'))) expect(event.audience).toEqual(completed[0].audience);
  });

  describe('over the hub', () => {
    const opened: HubConnection[] = [];
    afterAll(() => Promise.all(opened.map((c) => c.stop().catch(() => undefined))));

    async function connect(cookie: string) {
      const connection = new HubConnectionBuilder()
        .withUrl(`${baseUrl}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: cookie, Origin: origin } })
        .configureLogging(LogLevel.None)
        .build();
      opened.push(connection);
      const completed: Backup[] = [];
      connection.on('BackupCompleted', (payload: { backup: Backup }) => completed.push(payload.backup));
      await connection.start();
      return { connection, completed };
    }

    it('lets a member join Backups of their group’s instance and of all, and forbids B’s instance', async () => {
      const { connection } = await connect(cookies.memberA);
      await expect(connection.invoke('JoinBackups', instanceA)).resolves.toBeNull();
      await expect(connection.invoke('JoinBackups')).resolves.toBeNull();
      await expect(connection.invoke('JoinBackups', instanceB)).rejects.toThrow('Forbidden');
      await expect(connection.invoke('JoinBackups', deletedA)).rejects.toThrow('Forbidden');
    });

    it('delivers BackupCompleted of A’s instance to A’s member and an admin, not to B’s member listening to all backups', async () => {
      const memberA = await connect(cookies.memberA);
      const memberB = await connect(cookies.memberB);
      const admin = await connect(cookies.admin);
      await memberA.connection.invoke('JoinBackups', instanceA);
      await memberB.connection.invoke('JoinBackups');
      await admin.connection.invoke('JoinBackups');

      const ofA = await take(cookies.memberA, instanceA);
      const ofB = await take(cookies.memberB, instanceB);
      await waitFor(() => memberA.completed.length >= 1 && memberB.completed.length >= 1 && admin.completed.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(memberA.completed.map((b) => b.id)).toEqual([ofA.id]);
      expect(memberB.completed.map((b) => b.id)).toEqual([ofB.id]);
      expect(admin.completed.map((b) => b.id)).toEqual([ofA.id, ofB.id]);
    });
  });
});

async function waitFor(predicate: () => boolean, timeoutMs = 3000) {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
