import { Client } from 'pg';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// Database backups of a real PostgreSQL 15 whose schemas, tables and databases have names SQL must
// quote: dots, double quotes, spaces, upper case, unicode, and a database name that reads like a
// libpq connection string. The backup, its verification and a restore all work and count alike.

jest.setTimeout(300_000);

let world: InstanceWorld;
let source: Instance;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const oddDatabase = 'host=nowhere dbname=x';
// [schema, table, rows]
const tables: [string, string, number][] = [
  ['we.ird', 'ta.ble', 3],
  ['public', 'has "quotes"', 4],
  ['with space', 'and space', 5],
  ['UpperCase', 'MixedTable', 6],
  ['ünïcødé', '表 テーブル', 7],
  ['a', 'b.c', 8],
  ['a.b', 'c', 9],
];

async function connect(instance: Instance, database = 'postgres'): Promise<Client> {
  const { password } = (await world.call('POST', `/instances/${instance.id}/connection/secret?role=superuser`, {})).json() as { password: string };
  const client = new Client({ host: '127.0.0.1', port: instance.port, user: 'postgres', database, password });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function fillOddTables(client: Client) {
  for (const [schema, table, rows] of tables) {
    if (schema !== 'public') await client.query(`create schema if not exists ${quote(schema)}`);
    await client.query(`create table ${quote(schema)}.${quote(table)} (id int primary key, "odd col.umn" text)`);
    await client.query(`insert into ${quote(schema)}.${quote(table)} select g, 'row ' || g from generate_series(1, ${rows}) g`);
  }
}

const expectedRows = () => Object.fromEntries(tables.map(([schema, table, rows]) => [keyOf(schema, table), rows]));
// The manifest's key quotes a part only where SQL needs it, as PostgreSQL's format('%I.%I') does.
const keyOf = (schema: string, table: string) => [schema, table].map((n) => (/^[a-z_][a-z0-9_]*$/.test(n) ? n : quote(n))).join('.');

beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'oddities', type: 'pg' });
  await world.service().idle();
  source = await world.instance(res.json().id);
  const admin = await connect(source);
  await fillOddTables(admin);
  await admin.query(`create database ${quote(oddDatabase)}`);
  await admin.end();
  const odd = await connect(source, oddDatabase);
  await fillOddTables(odd);
  await odd.end();
});

afterAll(async () => {
  await world.destroy();
});

describe('a database backup with names that need quoting', () => {
  let backup: Backup;

  it('succeeds and names every table under its quoted name', async () => {
    const res = await world.call('POST', `/instances/${source.id}/backups/database/backup`, {});
    expect(res.statusCode).toBe(202);
    await world.backups().idle();
    const page = (await world.call('GET', `/instances/${source.id}/backups/database?pageSize=50`)).json() as PageOf<Backup>;
    backup = page.items.find((b) => b.id === res.json().id)!;

    expect({ status: backup.status, error: backup.error }).toEqual({ status: 'succeeded', error: null });
    // The rows are the planner's estimates; verify counts them exactly (below).
    const databases = Object.fromEntries(backup.contents!.databases!.map((d) => [d.name, d]));
    for (const name of ['postgres', oddDatabase]) {
      expect(databases[name].rowsEstimated).toBe(true);
      expect(Object.keys(databases[name].rows).sort()).toEqual(Object.keys(expectedRows()).sort());
    }
    expect(expectedRows()).toMatchObject({ '"we.ird"."ta.ble"': 3, 'public."has ""quotes"""': 4 });
  });

  it('verifies: the rows each dump holds, counted under their quoted names, are all restored in a scratch instance', async () => {
    expect((await world.call('POST', `/instances/${source.id}/backups/${backup.id}/verify`, {})).statusCode).toBe(202);
    await world.backups().idle();
    const verified = (await world.backups().find(backup.id))!;
    expect(verified.verification).toMatchObject({ ok: true });
    // Two databases hold 3 + 4 + … + 9 rows each; the owner role's own database none.
    const total = 2 * tables.reduce((sum, [, , rows]) => sum + rows, 0);
    expect(verified.verification!.detail).toContain(`3 database(s), ${2 * tables.length} table(s), ${total} row(s)`);
  });

  it('still verifies a backup recorded before names were quoted (keys `schema.table` as is)', async () => {
    const row = await world.db.selectFrom('backups').select('contents').where('id', '=', backup.id).executeTakeFirstOrThrow();
    const contents = JSON.parse(row.contents!) as { databases: { name: string; rows: Record<string, number>; rowsEstimated?: boolean }[] };
    const plain = Object.fromEntries(tables.map(([schema, table, rows]) => [`${schema}.${table}`, rows]));
    // Only names that never clash unquoted, as the earlier keys could not tell the others apart.
    delete plain['a.b.c'];
    // Such backups counted their rows exactly: no estimates.
    for (const database of contents.databases) {
      delete database.rowsEstimated;
      if (database.name === 'postgres' || database.name === oddDatabase) database.rows = plain;
    }
    await world.db.updateTable('backups').set({ contents: JSON.stringify(contents) }).where('id', '=', backup.id).execute();

    await world.call('POST', `/instances/${source.id}/backups/${backup.id}/verify`, {});
    await world.backups().idle();
    const verified = (await world.backups().find(backup.id))!;
    // Every recorded table is found under its old key; only the two dropped from the record differ.
    expect(verified.verification!.detail).not.toMatch(/is missing|rows, the backup recorded/);
    expect(verified.verification!.detail).toMatch(/a\."b\.c" was not in the backup/);
  });

  it('restores into a new instance with every odd table and database', async () => {
    const res = await world.call('POST', `/instances/${source.id}/clone`, { name: 'oddities-restored', backupId: backup.id });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const restored = await world.instance(res.json().id);
    expect(restored.status).toBe('running');
    for (const database of ['postgres', oddDatabase]) {
      const client = await connect(restored, database);
      for (const [schema, table, rows] of tables) {
        const { rows: found } = await client.query<{ n: number }>(`select count(*)::int as n from ${quote(schema)}.${quote(table)}`);
        expect({ database, schema, table, n: found[0].n }).toEqual({ database, schema, table, n: rows });
      }
      await client.end();
    }
  });

  it('leaves later backups working', async () => {
    const res = await world.call('POST', `/instances/${source.id}/backups/database/backup`, {});
    await world.backups().idle();
    expect((await world.backups().find(res.json().id))!).toMatchObject({ status: 'succeeded', error: null });
  });
});
