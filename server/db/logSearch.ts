import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';

/*
 * The store-specific part of the log store, kept in this one module: the full-text index over
 * message and properties, and the running totals per instance. Everything else about logs is
 * portable Kysely (server/db/logs.ts).
 *
 * SQLite: an FTS5 table `logs_fts` (contentless, rows deletable, rowid = logs.id) and triggers that
 * keep it and `log_totals` in step with every insert and delete, whoever makes them.
 *
 * PostgreSQL form: a generated column
 *   search tsvector GENERATED ALWAYS AS (to_tsvector('simple', message || ' ' || properties)) STORED
 * with `CREATE INDEX logs_search ON logs USING GIN (search)`, matched by
 * `search @@ plainto_tsquery('simple', $1)`; the totals by an AFTER INSERT OR DELETE trigger in
 * PL/pgSQL doing the same upsert as below (statement-level with transition tables for speed).
 */

/** Bytes an entry counts for in /logs/size and WARDEN_LOG_MAX_BYTES: its text columns, as stored. */
const entryBytes = (row: 'new' | 'old') =>
  `length(CAST(${row}.message AS BLOB)) + length(CAST(${row}.properties AS BLOB)) + length(CAST(${row}.handler AS BLOB)) + length(${row}.timestamp) + length(${row}.level) + coalesce(length(${row}.instance_id), 0)`;

export async function installLogSearch<DB>(db: Kysely<DB>): Promise<void> {
  // unicode61 folds case and diacritics; JSON punctuation separates keys and values into words.
  await sql`CREATE VIRTUAL TABLE logs_fts USING fts5(message, properties, content='', contentless_delete=1, tokenize='unicode61')`.execute(db);
  await sql`INSERT INTO logs_fts(rowid, message, properties) SELECT id, message, properties FROM logs`.execute(db);
  await sql`INSERT INTO log_totals(scope, entries, bytes)
    SELECT coalesce(instance_id, ''), count(*), coalesce(sum(${sql.raw(entryBytes('new').replaceAll('new.', ''))}), 0) FROM logs GROUP BY coalesce(instance_id, '')`.execute(db);
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

/**
 * The words of a search as an FTS5 query: every word must occur (in any order, message or
 * properties); each is quoted so operators and punctuation in the text stay literal. Null when
 * the text holds no word at all.
 */
export function ftsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu);
  if (!words) return null;
  return words.slice(0, 16).map((w) => `"${w}"`).join(' ');
}

/** `logs.id` is one of the entries whose message or properties hold every word of the search. */
export function matchesSearch(query: string): Expression<SqlBool> {
  return sql<SqlBool>`logs.id IN (SELECT rowid FROM logs_fts WHERE logs_fts MATCH ${query})`;
}
