import pg from 'pg';
import { migrateToLatest } from '../../server/db/migrations';
import { openDb } from '../../server/db/open';
import { openPostgresStore } from '../../server/db/postgresStore';
import type { Db } from '../../server/db/schema';
import { templateName } from './storeServer';

/*
 * The store a server suite runs on. The server-postgres jest project (globals.wardenStore) runs every
 * suite it lists on a PostgreSQL store: each store is a fresh copy of the migrated template on the
 * server its global setup started (WARDEN_TEST_DATABASE_URL); the server project runs them on SQLite.
 */

declare const wardenStore: 'sqlite' | 'postgres' | undefined;

/** Whether this suite runs on the PostgreSQL store. */
export const onPostgres = typeof wardenStore !== 'undefined' && wardenStore === 'postgres';

const databases = new WeakMap<Db, string>();
let counter = 0;

async function asAdmin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${baseUrl()}postgres` });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

function baseUrl(): string {
  const url = process.env.WARDEN_TEST_DATABASE_URL;
  if (!url) throw new Error('The PostgreSQL pass needs WARDEN_TEST_DATABASE_URL (its global setup sets it).');
  return url;
}

/** A new database, a copy of the migrated template; answers its URL. */
export async function newTestDatabase(): Promise<string> {
  const name = `store_${process.pid}_${++counter}_${Date.now().toString(36)}`;
  await asAdmin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${templateName}`));
  return `${baseUrl()}${name}`;
}

/**
 * The settings that put a server's store where this pass keeps it: on PostgreSQL, a new database
 * (a store of its own, as a data folder is); on SQLite, nothing (the store is in the data folder).
 */
export async function testStoreConfig(): Promise<{ databaseUrl?: string }> {
  return onPostgres ? { databaseUrl: await newTestDatabase() } : {};
}

/** A fresh migrated store: in memory on SQLite, a new database on PostgreSQL. */
export async function openTestDb(): Promise<Db> {
  if (!onPostgres) {
    const db = openDb(':memory:');
    await migrateToLatest(db);
    return db;
  }
  const url = await newTestDatabase();
  const db = openPostgresStore(url);
  databases.set(db, url);
  return db;
}

/** Closes a store from openTestDb; on PostgreSQL its database is dropped too. */
export async function closeTestDb(db: Db): Promise<void> {
  await db.destroy();
  const url = databases.get(db);
  if (url) await dropTestDatabase(url);
}

/** Drops a database made for a test. */
export async function dropTestDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
