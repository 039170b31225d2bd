import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import type { Config } from '../config';
import { openPostgresStore } from './postgresStore';
import type { Db, Database } from './schema';

export const storeFileName = 'warden.sqlite';

/**
 * Opens the store: on PostgreSQL when the configuration names one (databaseUrl), otherwise the
 * embedded SQLite store `<dataDir>/warden.sqlite` (creating the folder), or an in-memory store for
 * tests. Run `migrateToLatest` before use; `db.destroy()` closes it.
 */
export function openDb(target: (Pick<Config, 'dataDir'> & Partial<Pick<Config, 'databaseUrl' | 'databasePoolSize'>>) | ':memory:'): Db {
  if (target !== ':memory:' && target.databaseUrl) return openPostgresStore(target.databaseUrl, target.databasePoolSize);
  let file = ':memory:';
  if (target !== ':memory:') {
    // Engines run as users of their own and traverse the data folder to reach their instances: they
    // may pass through it, not list it.
    fs.mkdirSync(target.dataDir, { recursive: true, mode: 0o711 });
    file = path.join(target.dataDir, storeFileName);
    keepPrivate(file);
  }
  const sqlite = new SQLite(file);
  // Connection settings are SQLite-specific, so they are pragmas rather than Kysely queries.
  // WAL lets readers (and a second process, e.g. an e2e script) work while the server writes.
  if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new StoreDialect({ database: withStatementCache(sqlite) }, sqlite) });
}

/**
 * SQLite may end a transaction itself when its commit fails (the disk is full, an I/O error); the
 * rollback Kysely then sends would fail too and hide why. Only a transaction still open is rolled back.
 */
class StoreDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly sqlite: SQLite.Database,
  ) {
    super(config);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.sqlite.inTransaction) await super.rollbackTransaction(connection);
  }
}

class StoreDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly sqlite: SQLite.Database,
  ) {
    super(config);
  }

  override createDriver(): SqliteDriver {
    return new StoreDriver(this.config, this.sqlite);
  }
}

/**
 * The store holds password hashes, sessions, two-factor secrets and audit entries: only the server's
 * own user may read it, never an engine's. SQLite gives its -wal and -shm files the store's mode; a
 * store made before this rule is brought under it.
 */
function keepPrivate(file: string) {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const part of [file, `${file}-wal`, `${file}-shm`]) {
    if (fs.existsSync(part)) fs.chmodSync(part, 0o600);
  }
}

/** How many prepared statements are kept: the queries the server runs, with room for lists of varying length. */
const cachedStatements = 500;

/**
 * The database as Kysely sees it, with each statement prepared once and kept (least recently used
 * out first). Kysely prepares every query it runs anew; for the short queries a list answer makes,
 * preparing cost a tenth of the request. Kysely runs one query at a time on the connection, so a
 * kept statement is never in use twice; SQLite prepares it again by itself after a schema change.
 */
export function withStatementCache(sqlite: SqliteDatabase): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        if (statements.size >= cachedStatements) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}
