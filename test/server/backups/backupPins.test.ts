import { randomUUID } from 'node:crypto';
import type { Backup, BackupSchedule, RetentionPreview } from '../../../contracts/backups';
import type { BackupTrigger } from '../../../contracts/backupValues';
import { insertBackup } from '../../../server/db/backups';
import { addMembers, createGroup } from '../../../server/db/groups';
import { insertInstance } from '../../../server/db/instances';
import { addUser, cookieLogin, expectProblem, origin, setup, type Harness } from '../helpers';
import { inertEngine } from '../instances/inertEngine';

// Pins and the manual-backup rule, through the API: PUT …/pin, the schedule's includeManual, and
// what the retention preview (the same plan the pruning runs) would delete.

let h: Harness;
const cookies = { member: '', outsider: '' };
let instanceId: string;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (cookie: string, method: Method, url: string, payload?: object) =>
  h.app.inject({ method, url, headers: { origin, cookie, accept: 'application/json' }, ...(payload && { payload }) });

/** A succeeded database backup finished `daysAgo` days before the harness clock. */
async function backup(trigger: BackupTrigger, daysAgo: number): Promise<string> {
  const id = randomUUID();
  const at = new Date(h.clock.now().getTime() - daysAgo * 86_400_000).toISOString();
  await insertBackup(h.db, {
    id, instance_id: instanceId, instance_name: 'orders', engine: 'pg', kind: 'database', trigger, status: 'succeeded',
    started_at: at, finished_at: at, size_bytes: 1000, sha256: null, format: 'inert', engine_version: '15.0', error: null,
    storage_key: null, contents: null, verification: null, created_by: null,
  });
  return id;
}

beforeEach(async () => {
  h = await setup({ engines: { pg: inertEngine('pg'), etcd: inertEngine('etcd') }, supervise: false });
  const member = await addUser(h.db, 'member@example.com');
  await addUser(h.db, 'outsider@example.com');
  const group = await createGroup(h.db, { name: 'payments' }, h.clock.now());
  await addMembers(h.db, group.id, [member.id], h.clock.now());
  cookies.member = await cookieLogin(h, 'member@example.com');
  cookies.outsider = await cookieLogin(h, 'outsider@example.com');
  instanceId = randomUUID();
  await insertInstance(h.db, {
    id: instanceId, name: 'orders', type: 'pg', status: 'stopped', desired_state: 'stopped', status_reason: null, health_level: 'good',
    health_checks: '[]', group_id: group.id, engine_version: '15.0', port: 23001, peer_port: null, description: '',
    created_at: h.clock.now().toISOString(), created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
  });
});
afterEach(() => h.close());

const preview = async (body: object) => {
  const res = await call(cookies.member, 'POST', `/instances/${instanceId}/backups/retention/preview`, body);
  expect(res.statusCode).toBe(200);
  return (res.json() as RetentionPreview).wouldDelete.map((b) => b.id).sort();
};

describe('PUT /instances/{id}/backups/{backupId}/pin', () => {
  it('pins and unpins a backup, answers it, and records who did', async () => {
    const id = await backup('schedule', 1);
    const pinned = await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/${id}/pin`, { pinned: true });
    expect(pinned.statusCode).toBe(200);
    expect(pinned.json()).toMatchObject({ id, pinned: true } satisfies Partial<Backup>);
    const listed = (await call(cookies.member, 'GET', `/instances/${instanceId}/backups/database`)).json() as { items: Backup[] };
    expect(listed.items.find((b) => b.id === id)?.pinned).toBe(true);

    const unpinned = await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/${id}/pin`, { pinned: false });
    expect(unpinned.json().pinned).toBe(false);
    const actions = (await h.db.selectFrom('audit_entries').select(['action', 'target']).orderBy('at').execute()).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['backups.pin', 'backups.unpin']));
  });

  it('answers 404 to a non-member and 400 to a malformed body, changing nothing', async () => {
    const id = await backup('schedule', 1);
    expectProblem(await call(cookies.outsider, 'PUT', `/instances/${instanceId}/backups/${id}/pin`, { pinned: true }), 404);
    expectProblem(await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/${id}/pin`, { pinned: 'yes' }), 400);
    expectProblem(await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/${id}/pin`, { pinned: true, extra: 1 }), 400);
    expectProblem(await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/not-a-backup/pin`, { pinned: true }), 404);
    const row = await h.db.selectFrom('backups').select('pinned').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.pinned).toBe(0);
  });
});

describe('retention through the API', () => {
  it('trims scheduled backups only by default, all unpinned ones with includeManual, and never a pinned one', async () => {
    await backup('schedule', 1);
    const manual = await backup('manual', 2);
    const oldScheduled = await backup('schedule', 3);
    const pinnedScheduled = await backup('schedule', 4);
    await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/${pinnedScheduled}/pin`, { pinned: true });

    expect(await preview({ keepLast: 1, keepDays: null })).toEqual([oldScheduled]);
    expect(await preview({ keepLast: 1, keepDays: null, includeManual: true })).toEqual([manual, oldScheduled].sort());
  });

  it('previews the policy it is sent over the backups as they are now, whatever policy is saved', async () => {
    await backup('schedule', 1);
    const middle = await backup('schedule', 2);
    const oldest = await backup('schedule', 3);
    const saved = { enabled: false, cron: '0 3 * * *', timeZone: 'UTC', keepLast: 3, keepDays: null };
    expect((await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/schedule`, saved)).statusCode).toBe(200);
    expect(await preview({ keepLast: 1, keepDays: null })).toEqual([middle, oldest].sort());

    await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/${middle}/pin`, { pinned: true });
    expect(await preview({ keepLast: 1, keepDays: null })).toEqual([oldest]);
    const deleted = await call(cookies.member, 'DELETE', `/instances/${instanceId}/backups/database/${oldest}`);
    expect(deleted.statusCode).toBe(200);
    expect(await preview({ keepLast: 1, keepDays: null })).toEqual([]);
  });

  it('keeps includeManual with the schedule (false unless set)', async () => {
    const url = `/instances/${instanceId}/backups/schedule`;
    expect(((await call(cookies.member, 'GET', url)).json() as BackupSchedule).includeManual).toBe(false);
    const body = { enabled: false, cron: '0 3 * * *', timeZone: 'UTC', keepLast: 3, keepDays: null, includeManual: true };
    expect((await call(cookies.member, 'PUT', url, body)).statusCode).toBe(200);
    expect(((await call(cookies.member, 'GET', url)).json() as BackupSchedule).includeManual).toBe(true);
    const { includeManual: _, ...without } = body;
    expect(((await call(cookies.member, 'PUT', url, without)).json() as BackupSchedule).includeManual).toBe(false);
  });
});

describe('the schedule', () => {
  const schedule = { enabled: true, cron: '0 3 * * *', timeZone: 'UTC', keepLast: 7, keepDays: null };

  it('has no last run until one runs, and changing only the retention keeps it that way', async () => {
    const saved = await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/schedule`, schedule);
    expect(saved.statusCode).toBe(200);
    expect((saved.json() as BackupSchedule).lastRunAt).toBeNull();
    const retention = await call(cookies.member, 'PUT', `/instances/${instanceId}/backups/schedule`, { ...schedule, keepLast: 3 });
    expect((retention.json() as BackupSchedule).lastRunAt).toBeNull();
    expect((await call(cookies.member, 'GET', `/instances/${instanceId}/backups/schedule`)).json()).toMatchObject({ lastRunAt: null, keepLast: 3 });
  });
});
