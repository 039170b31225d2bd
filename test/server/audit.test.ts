import { randomUUID } from 'node:crypto';
import { recordAudit } from '../../server/db/audit';
import { insertBackup } from '../../server/db/backups';
import { createGroup } from '../../server/db/groups';
import { insertInstance } from '../../server/db/instances';
import { addUser, cookieLogin, expectProblem, goodPassword, origin, setup, type Harness } from './helpers';

let h: Harness;
let admin: string;
let adminId: string;
let aliceId: string;

beforeEach(async () => {
  h = await setup();
  adminId = (await addUser(h.db, 'root@example.com', 'admin')).id;
  aliceId = (await addUser(h.db, 'alice@example.com')).id;
  admin = await cookieLogin(h, 'root@example.com');
});
afterEach(() => h.close());

const get = (url: string, cookie = admin) => h.app.inject({ url, headers: { cookie } });
const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  h.app.inject({ method, url, ...(payload && { payload }), headers: { cookie: admin, origin } });
const actions = (res: { json(): { items: { action: string }[] } }) => res.json().items.map((e) => e.action);

describe('GET /admin/audit', () => {
  it('is for admins only', async () => {
    const alice = await cookieLogin(h, 'alice@example.com');

    expectProblem(await get('/admin/audit', alice), 403);
    expectProblem(await h.app.inject({ url: '/admin/audit' }), 401);
  });

  it('records every change, newest first, with who, what, target, outcome, ip and the e-mail of who', async () => {
    h.clock.advance(1000);
    const created = (await send('POST', '/admin/users', { email: 'new@example.com', password: goodPassword, role: 'regular' })).json();
    h.clock.advance(1000);
    await send('PUT', `/admin/users/${adminId}`, { role: 'regular' });
    h.clock.advance(1000);
    const group = (await send('POST', '/groups', { name: 'Ops' })).json();
    h.clock.advance(1000);
    await send('PUT', `/groups/${group.id}`, { name: 'Operations' });
    h.clock.advance(1000);
    await send('POST', `/groups/${group.id}/users`, { userIds: [aliceId] });
    h.clock.advance(1000);
    await send('DELETE', `/groups/${group.id}/users/${aliceId}`);
    h.clock.advance(1000);
    await send('POST', '/admin/users/change-password', { userId: aliceId, newPassword: 'Another-Pass-8' });
    h.clock.advance(1000);
    await send('DELETE', `/groups/${group.id}`);

    const res = await get('/admin/audit');

    expect(res.statusCode).toBe(200);
    expect(actions(res)).toEqual([
      'groups.delete',
      'admin.users.change-password',
      'groups.members.remove',
      'groups.members.add',
      'groups.update',
      'groups.create',
      'admin.users.update',
      'admin.users.create',
      'auth.login',
    ]);
    const entries = res.json().items;
    expect(entries[7]).toEqual({
      id: expect.any(String),
      at: '2030-01-02T03:04:06.000Z',
      userId: adminId,
      userEmail: 'root@example.com',
      action: 'admin.users.create',
      target: created.id,
      targetName: 'new@example.com',
      targetLink: `/admin/users/${created.id}`,
      outcome: 'success',
      detail: { email: 'new@example.com', role: 'regular' },
      ip: '127.0.0.1',
    });
    expect(entries[6]).toMatchObject({ action: 'admin.users.update', target: adminId, outcome: 'failure', detail: { status: 409 } });
    expect(entries[1]).toMatchObject({ target: aliceId, detail: { sessionsEnded: 0 } });
    expect(res.body).not.toContain('Another-Pass-8');
    expect(res.body).not.toContain(goodPassword);
  });

  it('names each target that still exists, with the screen that shows it, and leaves a gone one or an e-mail as it was', async () => {
    const group = await createGroup(h.db, { name: 'Payments' }, h.clock.now());
    const instanceId = randomUUID();
    await insertInstance(h.db, {
      id: instanceId, name: 'orders', type: 'pg', status: 'stopped', desired_state: 'stopped', status_reason: null, health_level: 'good',
      health_checks: '[]', group_id: group.id, engine_version: '15.0', port: 23001, peer_port: null, description: '',
      created_at: h.clock.now().toISOString(), created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
    });
    const backup = async (instance: string, kind: 'database' | 'file') => {
      const id = randomUUID();
      await insertBackup(h.db, {
        id, instance_id: instance, instance_name: 'orders', engine: 'pg', kind, trigger: 'manual', status: 'succeeded',
        started_at: '2030-01-01T10:00:00.000Z', finished_at: '2030-01-01T10:00:01.000Z', size_bytes: 1000, sha256: null, format: 'inert',
        engine_version: '15.0', error: null, storage_key: null, contents: null, verification: null, created_by: null,
      });
      return id;
    };
    const databaseBackup = await backup(instanceId, 'database');
    const fileBackup = await backup(instanceId, 'file');
    // The backup of an instance since deleted: its own screen is gone, the backups screen lists it.
    const orphan = await backup(randomUUID(), 'database');
    const gone = randomUUID();
    const targets = [instanceId, group.id, aliceId, databaseBackup, fileBackup, orphan, gone, 'someone@example.com'];
    for (const [minute, target] of targets.entries()) {
      await recordAudit(h.db, { at: new Date(Date.UTC(2031, 0, 1, 0, minute)), userId: adminId, action: 'test.act', target, outcome: 'success', ip: null });
    }

    const res = await get('/admin/audit?action=test');

    expect(res.statusCode).toBe(200);
    const shown = (res.json().items as { target: string; targetName: string | null; targetLink: string | null }[]).reverse();
    expect(shown.map(({ target, targetName, targetLink }) => [target, targetName, targetLink])).toEqual([
      [instanceId, 'orders', `/instances/${instanceId}`],
      [group.id, 'Payments', `/groups/${group.id}`],
      [aliceId, 'alice@example.com', `/admin/users/${aliceId}`],
      [databaseBackup, 'database backup of orders, 2030-01-01T10:00:00.000Z', `/instances/${instanceId}/backups/database`],
      [fileBackup, 'file backup of orders, 2030-01-01T10:00:00.000Z', `/instances/${instanceId}/backups/files`],
      [orphan, 'database backup of orders, 2030-01-01T10:00:00.000Z', '/backups'],
      [gone, null, null],
      ['someone@example.com', null, null],
    ]);
  });

  describe('filters', () => {
    beforeEach(async () => {
      const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute));
      const entry = (minute: number, action: string, userId: string | null, outcome: 'success' | 'failure' = 'success', target: string | null = null) =>
        recordAudit(h.db, { at: at(minute), userId, action, target, outcome, ip: null });
      await h.db.deleteFrom('audit_entries').execute();
      await entry(1, 'groups.create', adminId);
      await entry(2, 'groups.update', adminId, 'failure');
      await entry(3, 'groups.members.add', adminId);
      await entry(4, 'groupsX', adminId, 'success', 'Payments-DB');
      await entry(5, 'auth.login', aliceId, 'success', 'alice_100%');
      await entry(6, 'auth.login', null, 'failure');
    });

    it('matches an action exactly or as a dotted prefix', async () => {
      expect(actions(await get('/admin/audit?action=groups'))).toEqual(['groups.members.add', 'groups.update', 'groups.create']);
      expect(actions(await get('/admin/audit?action=groups.members'))).toEqual(['groups.members.add']);
      expect(actions(await get('/admin/audit?action=groupsX'))).toEqual(['groupsX']);
      expect(actions(await get('/admin/audit?action=group'))).toEqual([]);
    });

    it('filters by text the target contains, whatever its case, with LIKE wildcards taken literally', async () => {
      expect(actions(await get('/admin/audit?target=payments'))).toEqual(['groupsX']);
      expect(actions(await get(`/admin/audit?target=${encodeURIComponent('_100%')}`))).toEqual(['auth.login']);
      expect(actions(await get(`/admin/audit?target=${encodeURIComponent('%')}`))).toEqual(['auth.login']);
      expect(actions(await get('/admin/audit?target=nothing'))).toEqual([]);
      expect((await get(`/admin/audit?target=${'x'.repeat(201)}`)).statusCode).toBe(400);
    });

    it('filters by user and outcome', async () => {
      expect((await get(`/admin/audit?userId=${aliceId}`)).json()).toMatchObject({
        total: 1,
        items: [{ action: 'auth.login', userEmail: 'alice@example.com' }],
      });
      expect((await get('/admin/audit?outcome=failure')).json().items.map((e: { userEmail: string | null }) => e.userEmail)).toEqual([
        null,
        'root@example.com',
      ]);
    });

    it('filters by time: from inclusive, to exclusive', async () => {
      const res = await get('/admin/audit?from=2030-01-01T00:02:00Z&to=2030-01-01T00:05:00Z');
      expect(actions(res)).toEqual(['groupsX', 'groups.members.add', 'groups.update']);
      // Other offsets mean the same instants.
      expect(actions(await get(`/admin/audit?from=${encodeURIComponent('2030-01-01T01:05:00+01:00')}`))).toEqual([
        'auth.login',
        'auth.login',
      ]);
    });

    it('pages', async () => {
      const res = await get('/admin/audit?page=2&pageSize=4');
      expect(res.json()).toMatchObject({ total: 6, page: 2, pageSize: 4 });
      expect(actions(res)).toEqual(['groups.update', 'groups.create']);
    });

    it('refuses bad times, an inverted range, an unknown outcome and unknown parameters', async () => {
      expect(expectProblem(await get('/admin/audit?from=yesterday'), 400).errors).toHaveProperty('from');
      expect(expectProblem(await get('/admin/audit?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z'), 400).errors).toEqual({
        to: ['must not be before from'],
      });
      expect(expectProblem(await get('/admin/audit?outcome=maybe'), 400).errors).toHaveProperty('outcome');
      expect(expectProblem(await get('/admin/audit?sort=at'), 400).errors).toEqual({ sort: ['is not a known field'] });
    });
  });
});
