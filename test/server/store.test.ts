import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { migrateToLatest, migrationNames, migratorOf } from '../../server/db/migrations';
import { openDb, withStatementCache } from '../../server/db/open';
import { insertSession } from '../../server/db/sessions';
import { createUser, DuplicateEmailError, findByEmail } from '../../server/db/users';
import { goodPassword } from './helpers';

describe('the store', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'warden-store-')), 'nested', 'data');
  });
  afterEach(() => fs.rmSync(path.dirname(path.dirname(dataDir)), { recursive: true, force: true }));

  it('keeps the store readable by the server alone, and brings an older, readable store under that rule', async () => {
    const modes = () => Object.fromEntries(fs.readdirSync(dataDir).map((name) => [name, fs.statSync(path.join(dataDir, name)).mode & 0o777]));
    const db = openDb({ dataDir });
    await migrateToLatest(db);
    expect(modes()).toEqual({ 'warden.sqlite': 0o600, 'warden.sqlite-wal': 0o600, 'warden.sqlite-shm': 0o600 });
    // Engines pass through the data folder to their instances; they may not list it.
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o711);
    await db.destroy();

    fs.chmodSync(path.join(dataDir, 'warden.sqlite'), 0o644);
    const reopened = openDb({ dataDir });
    expect(modes()['warden.sqlite']).toBe(0o600);
    await reopened.destroy();
  });

  it('creates <dataDir>/warden.sqlite in WAL mode, and migrating twice is harmless', async () => {
    const db = openDb({ dataDir });
    await migrateToLatest(db);
    await migrateToLatest(db);
    await createUser(db, { email: 'a@example.com', password: goodPassword, role: 'regular' });

    expect(fs.existsSync(path.join(dataDir, 'warden.sqlite'))).toBe(true);
    // The write-ahead log exists while the store is open (SQLite folds it back in on close).
    expect(fs.existsSync(path.join(dataDir, 'warden.sqlite-wal'))).toBe(true);
    await db.destroy();
    const reopened = openDb({ dataDir });
    expect((await findByEmail(reopened, 'A@example.com'))?.email).toBe('a@example.com');
    await reopened.destroy();
  });

  it('migrates a store behind this build, and leaves an up-to-date one alone after one query', async () => {
    const queries: string[] = [];
    const file = new SQLite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'warden-store-')), 'warden.sqlite'));
    const db = new Kysely({ dialect: new SqliteDialect({ database: file }), log: (event) => void queries.push(event.query.sql) });
    // A store one migration behind this build: the migrator finds and applies the missing one.
    const [last, beforeLast] = [migrationNames.at(-1)!, migrationNames.at(-2)!];
    expect((await migratorOf(db).migrateTo(beforeLast)).error).toBeUndefined();
    await migrateToLatest(db);
    expect(file.prepare('select name from kysely_migration where name = ?').get(last)).toEqual({ name: last });

    queries.length = 0;
    await migrateToLatest(db);
    expect(queries).toHaveLength(1);
    await db.destroy();
    fs.rmSync(path.dirname(file.name), { recursive: true, force: true });
  });

  it('keeps e-mails unique regardless of case', async () => {
    const db = openDb(':memory:');
    await migrateToLatest(db);
    await createUser(db, { email: 'Bob@Example.com', password: goodPassword, role: 'admin' });

    await expect(createUser(db, { email: 'bob@example.COM', password: goodPassword, role: 'regular' })).rejects.toBeInstanceOf(
      DuplicateEmailError,
    );
    await db.destroy();
  });

  it('deletes a user’s sessions with the user (foreign keys are on)', async () => {
    const db = openDb(':memory:');
    await migrateToLatest(db);
    const user = await createUser(db, { email: 'c@example.com', password: goodPassword, role: 'regular' });
    const at = new Date().toISOString();
    await insertSession(db, { id: 'h', user_id: user.id, kind: 'cookie', persistent: 1, created_at: at, expires_at: at, last_seen_at: at, user_agent: null, ip: null });

    await db.deleteFrom('users').where('id', '=', user.id).execute();

    expect(await db.selectFrom('sessions').selectAll().execute()).toEqual([]);
    await expect(
      insertSession(db, { id: 'x', user_id: 'nobody', kind: 'cookie', persistent: 0, created_at: at, expires_at: at, last_seen_at: at, user_agent: null, ip: null }),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    await db.destroy();
  });
});

describe('the statement cache', () => {
  /** A store whose SQLite counts what it prepares. */
  function counted() {
    const sqlite = new SQLite(':memory:');
    const prepared: string[] = [];
    const prepare = sqlite.prepare.bind(sqlite);
    sqlite.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof sqlite.prepare;
    const db = new Kysely<{ t: { id: number; name: string } }>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    return { db, prepared };
  }

  it('prepares a query once however often it runs, and answers each run with its own parameters', async () => {
    const { db, prepared } = counted();
    await db.schema.createTable('t').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text').execute();
    for (let id = 1; id <= 50; id++) await db.insertInto('t').values({ id, name: `n${id}` }).execute();
    for (const id of [7, 8, 7]) {
      expect(await db.selectFrom('t').select('name').where('id', '=', id).executeTakeFirst()).toEqual({ name: `n${id}` });
    }
    expect(prepared.filter((sql) => sql.startsWith('insert'))).toHaveLength(1);
    expect(prepared.filter((sql) => sql.startsWith('select'))).toHaveLength(1);

    // A table changed under a kept statement: SQLite prepares it again by itself.
    await db.schema.alterTable('t').addColumn('extra', 'text').execute();
    expect(await db.selectFrom('t').select('name').where('id', '=', 9).executeTakeFirst()).toEqual({ name: 'n9' });
    await db.destroy();
  });

  it('keeps the 500 most recently used statements and prepares again what fell out', async () => {
    const { db, prepared } = counted();
    const select = (n: number) => sql`select ${sql.raw(String(n))} as n`.execute(db);
    for (let n = 0; n <= 500; n++) await select(n);
    await select(500); // still kept
    await select(0); // the least recently used one, pushed out by the 501st
    expect(prepared).toHaveLength(502);
    expect(prepared.at(-1)).toBe('select 0 as n');
    await db.destroy();
  });
});
