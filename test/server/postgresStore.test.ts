import { sql } from 'kysely';
import pg from 'pg';
import { buildApp, type App } from '../../server/app';
import { insertLogEntries, queryLogs } from '../../server/db/logs';
import { migrateToLatest, migrationNames } from '../../server/db/migrations';
import { openDb } from '../../server/db/open';
import { isPostgres, openPostgresStore } from '../../server/db/postgresStore';
import type { Db } from '../../server/db/schema';
import { addUser, cookieLogin, expectProblem, origin, testConfig, type Harness } from './helpers';
import { startStoreServer, type StoreServer } from './storeServer';

// The store on PostgreSQL (WARDEN_DATABASE_URL) where it differs from the embedded one: the same
// migrations with wider integers, full-text log search on tsvector, the running log totals kept by
// triggers, a bounded pool, and the store's server going away and coming back under load.

let server: StoreServer;
let counter = 0;

const newDatabase = () => server.createDatabase(`pg_store_${++counter}`);

beforeAll(async () => {
  server = await startStoreServer();
}, 60_000);

afterAll(() => server?.stop());

describe('the migrations on PostgreSQL', () => {
  it('make the same tables and columns as on SQLite, every integer 64 bits wide', async () => {
    const url = await newDatabase();
    const store = openPostgresStore(url);
    const embedded = openDb(':memory:');
    await migrateToLatest(embedded);
    try {
      expect(isPostgres(store)).toBe(true);
      expect(isPostgres(embedded)).toBe(false);
      const columnsOf = async (db: Db) =>
        Object.fromEntries(
          (await db.introspection.getTables())
            .filter((t) => !t.name.startsWith('logs_fts') && !t.name.startsWith('kysely_'))
            .map((t) => [t.name, t.columns.map((c) => c.name).filter((c) => c !== 'search').sort()]),
        );
      expect(await columnsOf(store)).toEqual(await columnsOf(embedded));
      const { rows } = await sql<{ data_type: string; n: number }>`
        select data_type, count(*) as n from information_schema.columns
        where table_schema = 'public' and table_name not like 'kysely%' and data_type in ('integer', 'bigint') group by data_type`.execute(store);
      expect(rows.map((r) => r.data_type)).toEqual(['bigint']);
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store);
      expect(applied.rows.map((r) => r.name)).toEqual(migrationNames);
      // A second run finds the store up to date and changes nothing.
      await migrateToLatest(store);
    } finally {
      await store.destroy();
      await embedded.destroy();
    }
  });

  it('give the log entries ids from a sequence, read back as numbers', async () => {
    const store = openPostgresStore(await newDatabase());
    try {
      const at = new Date('2030-01-01T00:00:00Z');
      await insertLogEntries(store, [
        { timestamp: at.toISOString(), level: 'information', instanceId: null, handler: 'Warden', message: 'first', properties: {} },
        { timestamp: at.toISOString(), level: 'information', instanceId: null, handler: 'Warden', message: 'second', properties: {} },
      ]);
      const ids = (await store.selectFrom('logs').select('id').orderBy('id').execute()).map((r) => r.id);
      expect(ids).toEqual([1, 2]);
      const { n } = await store.selectFrom('logs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(n).toBe(2);
    } finally {
      await store.destroy();
    }
  });
});

describe('log search and totals on PostgreSQL', () => {
  let store: Db;
  let h: Harness;
  let cookie: string;

  beforeAll(async () => {
    store = openPostgresStore(await newDatabase());
    const app = buildApp(testConfig({ logRetentionMs: 0, logMaxBytes: 0 }), { db: store, logger: false, supervise: false });
    h = { app, db: store, clock: undefined as never, close: async () => app.close() };
    await addUser(store, 'admin@example.com', 'admin');
    cookie = await cookieLogin(h, 'admin@example.com');
    const at = '2030-01-01T00:00:00.000Z';
    await insertLogEntries(store, [
      { timestamp: at, level: 'error', instanceId: null, handler: 'Warden', message: 'relation "orders" does not exist', properties: { sqlstate: '42P01' } },
      { timestamp: at, level: 'information', instanceId: null, handler: 'Warden', message: 'mail sent to ops@example.com', properties: {} },
      { timestamp: at, level: 'information', instanceId: null, handler: 'Warden', message: 'checkpoint_completer done', properties: { bytes: 8192 } },
    ]);
  });

  afterAll(async () => {
    await h.close();
    await store.destroy();
  });

  const search = async (text: string) => {
    const res = await h.app.inject({ method: 'GET', url: `/logs/all?search=${encodeURIComponent(text)}`, headers: { cookie, origin } });
    expect(res.statusCode).toBe(200);
    return (res.json().items as { message: string }[]).map((e) => e.message);
  };

  it('finds every word in any order, in message or properties, whatever its case', async () => {
    expect(await search('EXIST orders')).toEqual(['relation "orders" does not exist']);
    expect(await search('42p01')).toEqual(['relation "orders" does not exist']);
    expect(await search('orders missing')).toEqual([]);
  });

  it('finds the parts of an e-mail address or a name joined by underscores, as the embedded store does', async () => {
    expect(await search('example')).toEqual(['mail sent to ops@example.com']);
    expect(await search('checkpoint_completer')).toEqual(['checkpoint_completer done']);
    expect(await search('completer 8192')).toEqual(['checkpoint_completer done']);
  });

  it('keeps a log line holding the null character, which PostgreSQL text cannot hold, with U+FFFD in its place', async () => {
    const [stored] = await insertLogEntries(store, [{ timestamp: '2030-01-01T00:00:01.000Z', level: 'information', instanceId: null, handler: 'Warden', message: 'odd\0byte', properties: {} }]);
    expect(stored.message).toBe('odd\uFFFDbyte');
    const { items } = await queryLogs(store, { instanceId: null, search: 'ODD', limit: 10 });
    expect(items.map((e) => e.message)).toEqual(['odd\uFFFDbyte']);
    await store.deleteFrom('logs').where('id', '=', stored.id).execute();
  });

  it('answers a text holding the null character with a 400 that says why, not a 500', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/groups', headers: { cookie, origin }, payload: { name: 'nul', description: 'a\u0000b' } });
    const problem = expectProblem(res, 400);
    expect(problem.detail).toMatch(/null character/);
  });

  it('keeps the running totals in step with inserts and deletes, as counted from the entries', async () => {
    const totals = async () => store.selectFrom('log_totals').select(['scope', 'entries', 'bytes']).execute();
    const counted = await sql<{ entries: number; bytes: number }>`
      select count(*) as entries, sum(octet_length(message) + octet_length(properties) + octet_length(handler) + length(timestamp) + length(level)) as bytes
      from logs`.execute(store);
    expect(await totals()).toEqual([{ scope: '', ...counted.rows[0] }]);
    await store.deleteFrom('logs').where('message', 'like', 'mail%').execute();
    const [after] = await totals();
    expect(after.entries).toBe(2);
    expect(after.bytes).toBeLessThan(counted.rows[0].bytes);
  });
});

describe('the pool', () => {
  it('opens no more connections than its size, however many queries wait', async () => {
    const url = await newDatabase();
    const store = openPostgresStore(url, 3);
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    try {
      const most = { n: 0 };
      const watching = setInterval(() => {
        void watcher
          .query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where application_name = 'warden' and datname = current_database()`)
          .then((r) => (most.n = Math.max(most.n, r.rows[0].n)))
          .catch(() => undefined);
      }, 20);
      await Promise.all(Array.from({ length: 12 }, () => sql`select pg_sleep(0.1)`.execute(store)));
      clearInterval(watching);
      expect(most.n).toBeGreaterThan(0);
      expect(most.n).toBeLessThanOrEqual(3);
    } finally {
      await watcher.end();
      await store.destroy();
    }
  });
});

describe('the store going away under load', () => {
  let store: Db;
  let app: App;
  let cookie: string;

  beforeAll(async () => {
    store = openPostgresStore(await newDatabase(), 4);
    app = buildApp(testConfig(), { db: store, logger: false, supervise: false });
    await addUser(store, 'admin@example.com', 'admin');
    cookie = await cookieLogin({ app, db: store, clock: undefined as never, close: async () => undefined }, 'admin@example.com');
  });

  afterAll(async () => {
    await app.close();
    await store.destroy();
  });

  it('answers 503 with Retry-After while the store is down, never a 500, loses no acknowledged change, and recovers by itself', async () => {
    const escaped: unknown[] = [];
    const onRejection = (reason: unknown) => escaped.push(reason);
    process.on('unhandledRejection', onRejection);
    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    let stopping = false;
    let n = 0;
    const writer = async () => {
      while (!stopping) {
        const name = `load-${++n}`;
        const res = await app.inject({ method: 'POST', url: '/groups', headers: { cookie, origin }, payload: { name } });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode === 201) acknowledged.push(name);
        else if (res.statusCode === 503) {
          const problem = expectProblem(res, 503);
          expect(problem.title).toBe('Store unavailable');
          expect(res.headers['retry-after']).toBe('5');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    try {
      const writers = [writer(), writer()];
      await new Promise((resolve) => setTimeout(resolve, 500));
      const before = acknowledged.length;
      server.halt();
      // Longer than a new connection is retried: requests now fail with 503.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      server.resume();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      stopping = true;
      await Promise.all(writers);
      expect(before).toBeGreaterThan(0);
      expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
      expect([...statuses.keys()].sort()).toEqual([201, 503]);
      // Writes went on after the store came back, and every acknowledged group is there.
      expect(acknowledged.length).toBeGreaterThan(before);
      const stored = new Set((await store.selectFrom('groups').select('name').execute()).map((g) => g.name));
      expect(acknowledged.filter((name) => !stored.has(name))).toEqual([]);
      const res = await app.inject({ method: 'GET', url: '/groups', headers: { cookie, origin } });
      expect(res.statusCode).toBe(200);
      expect(escaped).toEqual([]);
    } finally {
      stopping = true;
      process.off('unhandledRejection', onRejection);
    }
  }, 60_000);
});
