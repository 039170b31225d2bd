import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type App } from '../../../server/app';
import { migrateToLatest } from '../../../server/db/migrations';
import { openDb } from '../../../server/db/open';
import type { Db } from '../../../server/db/schema';
import { pgSocketDir } from '../../../server/engines/pg';
import { InProcessBus } from '../../../server/hub/bus';
import { sandboxName } from '../../../server/scripts/sandbox';
import { testConfig } from '../helpers';
import { testStoreConfig } from '../testStore';

// A scratch PostgreSQL instance listens on <data dir>/instances/.scratch-pg-<name>/run/.s.PGSQL.<port>. A Unix
// socket address holds 107 bytes (sun_path is 108 with its NUL) and PostgreSQL refuses to start on a longer
// path, so the name a scratch instance gets must leave room for the data dir. The paths are measured under
// the data dir of a checkout started with `npm start` in a home folder (its default `./data`).

const socketPathMax = 107;
const realisticDataDir = '/home/operator/src/warden/data';

let dataDir: string;
let db: Db;
let app: App;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-scratch-names-'));
  db = openDb({ dataDir, ...(await testStoreConfig()) });
  await migrateToLatest(db);
  app = buildApp(testConfig({ dataDir, instancePorts: { from: 16400, to: 16999 } }), { db, bus: new InProcessBus(), logger: false });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await db.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The socket path PostgreSQL would listen on in a scratch instance of that name, under the realistic data dir (nothing is started). */
async function scratchSocket(name: string): Promise<string> {
  const { rt, dispose } = await app.instances.scratch('pg', name, null);
  await dispose();
  const dir = path.join(realisticDataDir, path.relative(dataDir, rt.dir));
  return path.join(pgSocketDir({ ...rt, dir }), `.s.PGSQL.${rt.port}`);
}

describe('scratch instance names and the Unix socket path limit', () => {
  it("keeps a script sandbox's socket path within 107 bytes", async () => {
    const socket = await scratchSocket(sandboxName(randomUUID()));
    expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(socketPathMax);
  });

  it("keeps a backup verification's socket path within 107 bytes (its scratch is named after the backup id)", async () => {
    const backupId = randomUUID();
    const socket = await scratchSocket(backupId);
    expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(socketPathMax);
  });
});
