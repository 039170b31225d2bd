import type { AddressInfo } from 'node:net';
import { buildApp } from '../../server/app';
import { migrateToLatest } from '../../server/db/migrations';
import { openDb } from '../../server/db/open';
import { addUser, testConfig } from './helpers';
import { inertEngine } from './instances/inertEngine';

// The server the HTTP fuzz suite (httpFuzz.test.ts) runs in a process of its own, so that an error
// escaping to the process ends it as it would end Warden in production. Real app and store over a
// fresh data dir; instances run the inert engine (no PostgreSQL or etcd is spawned). Prints
// `{"port": n}` once it listens; the users it makes sign in with helpers' goodPassword.

async function main() {
  const dataDir = process.env.WARDEN_FUZZ_DATA_DIR;
  if (!dataDir) throw new Error('WARDEN_FUZZ_DATA_DIR is not set');
  const db = openDb(':memory:');
  await migrateToLatest(db);
  await addUser(db, 'admin@example.com', 'admin');
  await addUser(db, 'member@example.com', 'regular');
  await addUser(db, 'other@example.com', 'regular');
  const config = testConfig({
    dataDir,
    instancePorts: { from: 30000, to: 39999 },
    loginRateLimit: 1_000_000,
    instanceCreateRateLimit: 1_000_000,
  });
  const app = buildApp(config, { db, logger: false, supervise: false, engines: { pg: inertEngine('pg'), etcd: inertEngine('etcd') } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ port: (app.server.address() as AddressInfo).port })}\n`);
}

void main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
  process.exit(1);
});
