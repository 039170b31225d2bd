import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrateToLatest } from '../../server/db/migrations';
import { openPostgresStore } from '../../server/db/postgresStore';

/*
 * A PostgreSQL 15 server for the store, started for the server suites' PostgreSQL pass (jest's
 * global setup of the server-postgres project) or by a suite of its own. It runs as Debian's
 * `postgres` user in a folder of its own, on a free loopback port, trusting loopback connections:
 * nothing but the tests reaches it. `warden_template` holds a migrated store; each test store is a
 * copy of it (CREATE DATABASE … TEMPLATE, about 20 ms).
 */

export const pgBin = process.env.WARDEN_PG_BINDIR ?? '/usr/lib/postgresql/15/bin';
export const templateName = 'warden_template';

export interface StoreServer {
  /** postgres://warden@127.0.0.1:<port>/ — a database name completes it. */
  baseUrl: string;
  dir: string;
  port: number;
  /** Shuts the server down (fast: sessions are cut, as a crash or restart would cut them). */
  halt(): void;
  /** Starts it again after halt, on the same port and data. */
  resume(): void;
  /** A new database, a copy of the migrated template; answers its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** initdb as `postgres` (initdb refuses root), a start on a free port, and the migrated template. */
export async function startStoreServer(): Promise<StoreServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-store-'));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  const asPostgres = (bin: string, args: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', path.join(pgBin, bin), ...args], { cwd: dir, stdio: 'pipe' });
  execFileSync('chown', ['postgres', dir]);
  asPostgres('initdb', ['-D', data, '-U', 'warden', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  // Durability is not what these tests measure: without fsync the many small stores cost less.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400`;
  const start = () => asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']);
  start();
  const baseUrl = `postgres://warden@127.0.0.1:${port}/`;
  const admin = new pg.Client({ connectionString: `${baseUrl}postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${templateName}`);
  await admin.end();
  const template = openPostgresStore(`${baseUrl}${templateName}`, 1);
  await migrateToLatest(template);
  await template.destroy();
  return {
    baseUrl,
    dir,
    port,
    halt: () => asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: `${baseUrl}postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name} TEMPLATE ${templateName}`);
      } finally {
        await client.end();
      }
      return `${baseUrl}${name}`;
    },
    resume: start,
    stop() {
      spawnSync('runuser', ['-u', 'postgres', '--', path.join(pgBin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'], { stdio: 'ignore' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
