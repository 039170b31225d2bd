import { randomUUID } from 'node:crypto';
import { instanceCount } from '../../server/db/instanceCount';
import { insertInstance, listInstances } from '../../server/db/instances';
import type { Db } from '../../server/db/schema';
import { closeTestDb, openTestDb } from './testStore';

// The count of instances the store keeps itself (both stores: this suite runs in both passes), read
// by the admins' unfiltered list instead of counting every row.

let db: Db;
beforeEach(async () => {
  db = await openTestDb();
});
afterEach(() => closeTestDb(db));

let port = 22000;
const row = (name: string) => ({
  id: randomUUID(), name, type: 'pg' as const, status: 'stopped' as const, desired_state: 'stopped' as const, status_reason: null,
  health_level: 'good' as const, health_checks: '[]', group_id: null, engine_version: '15.0', port: ++port, peer_port: null,
  description: '', created_at: '2030-01-01T00:00:00.000Z', created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
});
const counted = async () => Number((await db.selectFrom('instances').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

it('follows every insert and delete, one row or many at a time', async () => {
  expect(await instanceCount(db)).toBe(0);
  for (const name of ['a', 'b', 'c']) await insertInstance(db, row(name));
  await db.insertInto('instances').values([row('d'), row('e')].map((r) => ({ ...r, member_ports: null, cluster: null, version: 0 }))).execute();
  expect(await instanceCount(db)).toBe(5);
  await db.deleteFrom('instances').where('name', 'in', ['a', 'd']).execute();
  expect(await instanceCount(db)).toBe(3);
  expect(await instanceCount(db)).toBe(await counted());
});

it('gives the admins’ unfiltered list its total, and a filtered list still counts', async () => {
  for (const name of ['orders', 'billing', 'audit']) await insertInstance(db, row(name));
  const all = await listInstances(db, { page: 1, pageSize: 1, visibleGroupIds: null });
  expect([all.total, all.items.map((i) => i.name)]).toEqual([3, ['audit']]);
  const some = await listInstances(db, { page: 1, pageSize: 1, visibleGroupIds: null, search: 'i' });
  expect(some.total).toBe(2);
});
