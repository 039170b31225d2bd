import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { createGroup } from '../../../server/db/groups';
import { insertInstance, listInstances, type InstanceListQuery } from '../../../server/db/instances';
import { migrateToLatest } from '../../../server/db/migrations';
import type { Database } from '../../../server/db/schema';

// How SQLite runs the instance list's queries (bench/instances.ts measures what it costs): the
// filtered count reads one index and no table row, and a page sorted by name walks an index in
// order instead of sorting. A change to the queries or the indexes that loses either shows here.

const sqlite = new SQLite(':memory:');
const queries: CompiledQuery[] = [];
const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: (event) => void queries.push(event.query) });
let groupId: string;

/** SQLite's plan for each query one list call makes: the SQL and its steps. */
async function plans(query: Omit<InstanceListQuery, 'visibleGroupIds'>) {
  queries.length = 0;
  const page = await listInstances(db, { ...query, visibleGroupIds: null });
  const steps = queries.map(({ sql, parameters }) => ({
    sql,
    steps: (sqlite.prepare(`explain query plan ${sql}`).all(...parameters) as { detail: string }[]).map((row) => row.detail),
  }));
  return { page, count: steps.find((q) => /count\(\*\)/.test(q.sql))?.steps, items: steps.find((q) => !/count\(\*\)/.test(q.sql))!.steps };
}

beforeAll(async () => {
  await migrateToLatest(db);
  groupId = (await createGroup(db, { name: 'platform' }, new Date('2030-01-01T00:00:00Z'))).id;
  for (let i = 0; i < 30; i++) {
    await insertInstance(db, {
      id: randomUUID(), name: `${i % 2 ? 'orders' : 'ledger'}-pg-${String(i).padStart(2, '0')}`, type: 'pg',
      status: i % 3 ? 'running' : 'stopped', desired_state: 'running', status_reason: null, health_level: 'good', health_checks: '[]',
      group_id: groupId, engine_version: '15.0', port: 30000 + i, peer_port: null, description: i % 5 ? 'primary store' : 'Order history',
      created_at: `2030-01-${String(1 + i).padStart(2, '0')}T00:00:00.000Z`, created_by: null, last_backup_at: null, operation_kind: null,
      operation_started_at: null,
    });
  }
});
afterAll(() => db.destroy());

describe('the instance list’s query plans', () => {
  it('counts a list filtered by group, status and text from an index alone', async () => {
    const { page, count } = await plans({ page: 1, pageSize: 5, groupId, status: 'running', search: 'order' });
    // 20 running; 10 named orders-…, and of the other 10 the two described as "Order history".
    expect(page.total).toBe(12);
    expect(count).toEqual([expect.stringMatching(/^SEARCH instances USING COVERING INDEX \S+ \(group_id=\? AND status=\?\)$/)]);
  });

  it('walks a page sorted by name in index order, and sorts other orders with name breaking ties', async () => {
    const byName = await plans({ page: 1, pageSize: 5, groupId, status: 'running', search: 'order' });
    expect(byName.items.join('\n')).not.toMatch(/TEMP B-TREE/);
    expect(byName.page.items.map((i) => i.name)).toEqual(['ledger-pg-10', 'ledger-pg-20', 'orders-pg-01', 'orders-pg-05', 'orders-pg-07']);

    const byNameDescending = await plans({ page: 1, pageSize: 3, groupId, sort: '-name' });
    expect(byNameDescending.items.join('\n')).not.toMatch(/TEMP B-TREE/);
    expect(byNameDescending.page.items.map((i) => i.name)).toEqual(['orders-pg-29', 'orders-pg-27', 'orders-pg-25']);

    // Equal statuses come in name order, in both directions of the status.
    const byStatus = await plans({ page: 1, pageSize: 3, groupId, sort: '-status' });
    expect(byStatus.page.items.map((i) => [i.status, i.name])).toEqual([
      ['stopped', 'ledger-pg-00'],
      ['stopped', 'ledger-pg-06'],
      ['stopped', 'ledger-pg-12'],
    ]);
    expect((await plans({ page: 1, pageSize: 2, groupId, sort: 'status' })).page.items.map((i) => i.name)).toEqual(['ledger-pg-02', 'ledger-pg-04']);
  });
});
