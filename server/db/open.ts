import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Config } from '../config';
import type { Db, Database } from './schema';

export const storeFileName = 'warden.sqlite';

/**
 * Opens the embedded SQLite store `<dataDir>/warden.sqlite` (creating the folder), or an in-memory
 * store for tests. Run `migrateToLatest` before use; `db.destroy()` closes it.
 */
export function openDb(target: Pick<Config, 'dataDir'> | ':memory:'): Db {
  let file = ':memory:';
  if (target !== ':memory:') {
    fs.mkdirSync(target.dataDir, { recursive: true });
    file = path.join(target.dataDir, storeFileName);
  }
  const sqlite = new SQLite(file);
  // Connection settings are SQLite-specific, so they are pragmas rather than Kysely queries.
  // WAL lets readers (and a second process, e.g. an e2e script) work while the server writes.
  if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}
