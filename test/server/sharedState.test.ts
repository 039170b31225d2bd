import { buildApp, type App } from '../../server/app';
import { UrlSigner } from '../../server/backups/signedUrls';
import { claimScheduleRun, saveSchedule } from '../../server/db/backups';
import { insertInstance } from '../../server/db/instances';
import { openPostgresStore } from '../../server/db/postgresStore';
import type { Db } from '../../server/db/schema';
import { addUser, goodPassword, origin, testConfig } from './helpers';
import { startStoreServer, type StoreServer } from './storeServer';

// What several servers on one PostgreSQL store must agree on, so that any request may reach any of
// them: rate limits count a client's calls on every server together, a download link made by one
// opens on another, and a backup schedule's slot is taken by one server however many saw it due.

let server: StoreServer;
let url: string;
const stores: Db[] = [];
const apps: App[] = [];

/** A server on the shared store, as WARDEN_DATABASE_URL makes one: its own pool, the shared rate limits and bus. */
function startServer(): App {
  const db = openPostgresStore(url, 4);
  stores.push(db);
  const app = buildApp(testConfig({ databaseUrl: url, loginRateLimit: 4 }), { db, logger: false, supervise: false });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  server = await startStoreServer();
  url = await server.createDatabase('shared');
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  for (const db of stores) await db.destroy();
  server?.stop();
});

describe('servers sharing a PostgreSQL store', () => {
  it('count one address’s sign-ins on every server together: the fifth in a minute is refused wherever it lands', async () => {
    const [a, b] = [startServer(), startServer()];
    await addUser(stores[0], 'alice@example.com');
    const attempt = (app: App) =>
      app.inject({ method: 'POST', url: '/auth/login', headers: { origin }, payload: { email: 'alice@example.com', password: goodPassword }, remoteAddress: '192.0.2.7' });
    const statuses = [];
    for (const app of [a, b, a, b]) statuses.push((await attempt(app)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const refused = await attempt(a);
    expect(refused.statusCode).toBe(429);
    expect((await attempt(b)).statusCode).toBe(429);
    // Another address has its own count.
    const other = await a.inject({ method: 'POST', url: '/auth/login', headers: { origin }, payload: { email: 'alice@example.com', password: goodPassword }, remoteAddress: '192.0.2.8' });
    expect(other.statusCode).toBe(200);
  });

  it('sign download links with one key kept in the store, so a link made by one server opens on another', async () => {
    const [a, b] = [new UrlSigner('/nonexistent-a', stores[0]), new UrlSigner('/nonexistent-b', stores[1])];
    const { expires, signature } = await a.sign('backup-1', new Date(Date.now() + 60_000));
    expect(await b.check('backup-1', expires, signature, new Date())).toBe('ok');
    expect(await b.check('backup-2', expires, signature, new Date())).toBe('invalid');
    // The key is the store's, not a file's: neither data folder was touched.
    const { n } = await stores[0].selectFrom('shared_secrets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(n).toBe(1);
  });

  it('take a backup schedule’s due slot once, however many servers claim it at the same moment', async () => {
    const db = stores[0];
    const now = new Date().toISOString();
    await insertInstance(db, {
      id: 'i1', name: 'orders', type: 'pg', status: 'stopped', desired_state: 'stopped', status_reason: null,
      health_level: 'good', health_checks: '[]', group_id: null, engine_version: '15.0', port: 21999, peer_port: null,
      description: '', created_at: now, created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
    });
    await saveSchedule(db, { instance_id: 'i1', enabled: 1, cron: '0 * * * *', time_zone: 'UTC', keep_last: 3, keep_days: null, last_run_at: null, updated_at: now });
    // Three servers read the schedule (never run) and claim the same slot at once, each on its own pool.
    const claimers = [stores[0], stores[1], openPostgresStore(url, 2)];
    stores.push(claimers[2]);
    for (let round = 0; round < 5; round++) {
      const { last_run_at } = await db.selectFrom('backup_schedules').select('last_run_at').where('instance_id', '=', 'i1').executeTakeFirstOrThrow();
      const slot = new Date(Date.UTC(2030, 0, 1, round)).toISOString();
      const won = await Promise.all(claimers.map((store) => claimScheduleRun(store, 'i1', last_run_at, slot)));
      expect(won.filter(Boolean)).toHaveLength(1);
    }
  });
});
