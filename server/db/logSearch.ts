import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { isPostgres } from './postgresStore';

/*
 * The store-specific part of the log store, kept in this one module with both forms side by side:
 * the full-text index over message and properties, and the running totals per instance. Everything
 * else about logs is portable Kysely (server/db/logs.ts).
 *
 * SQLite: an FTS5 table `logs_fts` (contentless, rows deletable, rowid = logs.id) and triggers that
 * keep it and `log_totals` in step with every insert and delete, whoever makes them.
 *
 * PostgreSQL: a generated column `search`, the words of message and properties as a tsvector under
 * a GIN index, and statement-level triggers over the rows each statement inserted or deleted that
 * keep `log_totals` in step. Words are split as unicode61 splits them (at every character neither a
 * letter nor a digit) before the 'simple' configuration lower-cases them, without stemming; PostgreSQL's
 * own parser would keep an e-mail address or a host name whole, where FTS5 finds each of its parts.
 * Unlike unicode61, 'simple' keeps diacritics: "café" does not find "cafe" there.
 */

/** Bytes an entry counts for in /logs/size and WARDEN_LOG_MAX_BYTES: its text columns, as stored. */
const entryBytes = (row: string) =>
  `length(CAST(${row}.message AS BLOB)) + length(CAST(${row}.properties AS BLOB)) + length(CAST(${row}.handler AS BLOB)) + length(${row}.timestamp) + length(${row}.level) + coalesce(length(${row}.instance_id), 0)`;
const entryBytesPostgres = (row: string) =>
  `octet_length(${row}.message) + octet_length(${row}.properties) + octet_length(${row}.handler) + length(${row}.timestamp) + length(${row}.level) + coalesce(length(${row}.instance_id), 0)`;

export async function installLogSearch<DB>(db: Kysely<DB>): Promise<void> {
  if (isPostgres(db)) return installLogSearchPostgres(db);
  // unicode61 folds case and diacritics; JSON punctuation separates keys and values into words.
  await sql`CREATE VIRTUAL TABLE logs_fts USING fts5(message, properties, content='', contentless_delete=1, tokenize='unicode61')`.execute(db);
  await sql`INSERT INTO logs_fts(rowid, message, properties) SELECT id, message, properties FROM logs`.execute(db);
  await sql`INSERT INTO log_totals(scope, entries, bytes)
    SELECT coalesce(instance_id, ''), count(*), coalesce(sum(${sql.raw(entryBytes('logs'))}), 0) FROM logs GROUP BY coalesce(instance_id, '')`.execute(db);
  await sql.raw(`CREATE TRIGGER logs_after_insert AFTER INSERT ON logs BEGIN
      INSERT INTO logs_fts(rowid, message, properties) VALUES (new.id, new.message, new.properties);
      INSERT INTO log_totals(scope, entries, bytes) VALUES (coalesce(new.instance_id, ''), 1, ${entryBytes('new')})
        ON CONFLICT(scope) DO UPDATE SET entries = entries + 1, bytes = bytes + excluded.bytes;
    END`).execute(db);
  await sql.raw(`CREATE TRIGGER logs_after_delete AFTER DELETE ON logs BEGIN
      DELETE FROM logs_fts WHERE rowid = old.id;
      UPDATE log_totals SET entries = entries - 1, bytes = bytes - (${entryBytes('old')}) WHERE scope = coalesce(old.instance_id, '');
    END`).execute(db);
}

async function installLogSearchPostgres<DB>(db: Kysely<DB>): Promise<void> {
  await sql`ALTER TABLE logs ADD COLUMN search tsvector
    GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(message || ' ' || properties, '[^[:alnum:]]+', ' ', 'g'))) STORED`.execute(db);
  await sql`CREATE INDEX logs_search ON logs USING GIN (search)`.execute(db);
  await sql`INSERT INTO log_totals(scope, entries, bytes)
    SELECT coalesce(instance_id, ''), count(*), coalesce(sum(${sql.raw(entryBytesPostgres('logs'))}), 0) FROM logs GROUP BY coalesce(instance_id, '')`.execute(db);
  await sql.raw(`CREATE FUNCTION log_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      INSERT INTO log_totals(scope, entries, bytes)
        SELECT coalesce(instance_id, ''), count(*), sum(${entryBytesPostgres('added')}) FROM added GROUP BY 1 ORDER BY 1
        ON CONFLICT(scope) DO UPDATE SET entries = log_totals.entries + excluded.entries, bytes = log_totals.bytes + excluded.bytes;
      RETURN NULL;
    END $$`).execute(db);
  await sql.raw(`CREATE FUNCTION log_totals_remove() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      UPDATE log_totals SET entries = log_totals.entries - gone.entries, bytes = log_totals.bytes - gone.bytes
        FROM (SELECT coalesce(instance_id, '') AS scope, count(*) AS entries, sum(${entryBytesPostgres('removed')}) AS bytes FROM removed GROUP BY 1) gone
        WHERE log_totals.scope = gone.scope;
      RETURN NULL;
    END $$`).execute(db);
  await sql`CREATE TRIGGER logs_after_insert AFTER INSERT ON logs REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION log_totals_add()`.execute(db);
  await sql`CREATE TRIGGER logs_after_delete AFTER DELETE ON logs REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION log_totals_remove()`.execute(db);
}

/**
 * The words of a search: every one must occur (in any order, message or properties). Null when
 * the text holds no word at all.
 */
export function searchWords(text: string): string[] | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu);
  if (!words) return null;
  return words.slice(0, 16);
}

/** `logs.id` is one of the entries whose message or properties hold every word of the search. */
export function matchesSearch(db: { getExecutor(): { readonly adapter: unknown } }, words: string[]): Expression<SqlBool> {
  if (isPostgres(db)) {
    // Words split and lower-cased as they were indexed, each a lexeme of its own: letters and digits only.
    const lexemes = words.flatMap((w) => w.toLowerCase().split('_')).filter((w) => w !== '');
    if (lexemes.length === 0) return sql<SqlBool>`false`;
    const query = lexemes.map((w) => `'${w}'`).join(' & ');
    return sql<SqlBool>`logs.search @@ ${query}::tsquery`;
  }
  // Each word quoted, so FTS5 operators in the text stay literal.
  const query = words.map((w) => `"${w}"`).join(' ');
  return sql<SqlBool>`logs.id IN (SELECT rowid FROM logs_fts WHERE logs_fts MATCH ${query})`;
}
