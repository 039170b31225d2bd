import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { Selectable } from 'kysely';
import type { Instance } from '../../../contracts/instances';
import { buildApp, type App } from '../../../server/app';
import type { PitrConfig } from '../../../server/config';
import { startCookieSession } from '../../../server/auth/sessions';
import { addMembers, createGroup } from '../../../server/db/groups';
import { findInstanceRow, allInstanceRows } from '../../../server/db/instances';
import { migrateToLatest } from '../../../server/db/migrations';
import { openDb } from '../../../server/db/open';
import type { AuditEntriesTable, Db } from '../../../server/db/schema';
import { etcdEngine } from '../../../server/engines/etcd';
import { pgEngine } from '../../../server/engines/pg';
import { removeInstanceUser } from '../../../server/engines/instanceUsers';
import { InProcessBus, type HubEvent } from '../../../server/hub/bus';
import { pitrOptions } from '../../../server/pitr/pitrConfig';
import { addUser, origin, testConfig } from '../helpers';
import { dropTestDatabase, testStoreConfig } from '../testStore';

/**
 * A server with the real engines over a store file in a fresh data dir the engine user can reach,
 * signed in as an admin, recording every published event. `restartServer` replaces the server
 * process's app with a new one over the same store and data dir, as a restart would.
 */
export interface InstanceWorld {
  dataDir: string;
  db: Db;
  app(): App;
  service(): App['instances'];
  backups(): App['backups'];
  logs(): App['instanceLogs'];
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, cookie?: string): Promise<LightMyRequestResponse>;
  instance(id: string): Promise<Instance>;
  /** The engine's main process on the host (the postmaster, or etcd) as the server finds it; throws when it does not run. */
  enginePid(id: string): Promise<number>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  events(name: string): any[];
  logCount(instanceId: string): Promise<number>;
  cookieFor(email: string, role?: 'admin' | 'regular'): Promise<string>;
  /** The audit entries of an action, newest first. */
  auditOf(action: string): Promise<Selectable<AuditEntriesTable>[]>;
  /** A user's id by e-mail. */
  userId(email: string): Promise<string>;
  /** A new group with a new regular user in it: the group's id and the member's cookie. */
  groupWithMember(groupName: string, email: string): Promise<{ groupId: string; cookie: string }>;
  /** Creates an instance as the admin and waits for its creation to finish. */
  created(body: { name: string; type: 'pg' | 'etcd'; groupId?: string }): Promise<Instance>;
  restartServer(): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * Each jest worker its own ports: a port is checked free when it is handed out but bound only when
 * the engine starts (a cluster's peers and Patroni seconds later), so two workers sharing a range
 * could hand out the same one in between.
 */
function workerPorts(): { from: number; to: number } {
  const slot = (Number(process.env.JEST_WORKER_ID ?? 1) - 1) % 2;
  return { from: 16400 + slot * 300, to: 16699 + slot * 300 };
}

/**
 * `pitr`: pg instances archive WAL with pgBackRest into `<dataDir>/pitr`, as a server does by default,
 * or into the bucket given.
 */
export async function instanceWorld(options: { pitr?: boolean | { s3: NonNullable<PitrConfig['s3']> } } = {}): Promise<InstanceWorld> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-instances-'));
  fs.chmodSync(dataDir, 0o711);
  // On the PostgreSQL pass, a database of its own stands for the data folder's store.
  const store = await testStoreConfig();
  const db = openDb({ dataDir, ...store });
  await migrateToLatest(db);
  const config = testConfig({
    dataDir,
    ...store,
    instancePorts: workerPorts(),
    probeIntervalMs: 3_600_000,
    logPollMs: 3_600_000,
    ...(options.pitr && { pitr: { enabled: true, bin: '/usr/bin/pgbackrest', s3: options.pitr === true ? null : options.pitr.s3 } }),
  });
  const published: HubEvent[] = [];
  const bus = new InProcessBus();
  bus.subscribe((event) => published.push(event));
  const engines = { pg: pgEngine(config.engines, { catalogDir: path.join(dataDir, 'engines'), pitr: pitrOptions(config).options }), etcd: etcdEngine(config.engines) };

  const start = async () => {
    const app = buildApp(config, { db, bus, engines, logger: false });
    await app.ready();
    return app;
  };
  let app = await start();
  const admin = await addUser(db, 'admin@example.com', 'admin');
  const session = async (userId: string) =>
    `warden_session=${(await startCookieSession({ db, clock: () => new Date() }, userId, true, { ip: null, userAgent: null })).token}`;
  const adminCookie = await session(admin.id);

  const call: InstanceWorld['call'] = (method, url, body, cookie = adminCookie) =>
    app.inject({
      method,
      url,
      headers: { origin, cookie, accept: 'application/json' },
      ...(body !== undefined && { payload: body as object }),
    });

  return {
    dataDir,
    db,
    app: () => app,
    service: () => app.instances,
    backups: () => app.backups,
    logs: () => app.instanceLogs,
    call,
    async instance(id) {
      const res = await call('GET', `/instances/${id}`);
      if (res.statusCode !== 200) throw new Error(`GET /instances/${id}: ${res.statusCode} ${res.body}`);
      return res.json() as Instance;
    },
    async enginePid(id) {
      const row = (await findInstanceRow(db, id))!;
      const pid = engines[row.type].pid(app.instances.runtime(row));
      if (pid === null) throw new Error(`${row.name} is not running`);
      return pid;
    },
    events: (name) => published.filter((e) => e.event === name).map((e) => e.payload),
    async logCount(instanceId) {
      const row = await db.selectFrom('logs').select((eb) => eb.fn.countAll<number>().as('n')).where('instance_id', '=', instanceId).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async cookieFor(email, role = 'regular') {
      return session((await addUser(db, email, role)).id);
    },
    auditOf: (action) => db.selectFrom('audit_entries').selectAll().where('action', '=', action).orderBy('at', 'desc').execute(),
    async userId(email) {
      return (await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
    },
    async groupWithMember(groupName, email) {
      const group = await createGroup(db, { name: groupName }, new Date());
      const user = await addUser(db, email, 'regular');
      await addMembers(db, group.id, [user.id], new Date());
      return { groupId: group.id, cookie: await session(user.id) };
    },
    async created(body) {
      const res = await call('POST', '/instances', body);
      if (res.statusCode !== 202) throw new Error(`POST /instances: ${res.statusCode} ${res.body}`);
      await app.instances.idle();
      return (await call('GET', `/instances/${res.json().id}`)).json() as Instance;
    },
    async restartServer() {
      await app.close();
      app = await start();
      await app.instances.idle();
      await app.backups.idle();
    },
    async destroy() {
      await app.close();
      for (const row of await allInstanceRows(db)) {
        const current = await findInstanceRow(db, row.id);
        if (!current) continue;
        await engines[row.type].stop(app.instances.runtime(current)).catch(() => undefined);
        // Each instance has its own system user when the tests run as root: none outlives the run.
        await removeInstanceUser(row.id);
      }
      await db.destroy();
      if (store.databaseUrl) await dropTestDatabase(store.databaseUrl);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
