import { sql, type Kysely } from 'kysely';
import type { Db } from './schema';
import { isPostgres } from './postgresStore';

/*
 * How many instances there are, kept by the store itself in `instance_count` (one row), so the
 * admins' unfiltered list reads its total instead of counting every row: on PostgreSQL a count
 * scans the table (about 5 ms at 100,000 instances), where SQLite counts an index. Both forms side
 * by side: SQLite's row triggers, PostgreSQL's statement triggers over the rows each statement
 * inserted or deleted.
 */

export async function installInstanceCount<DB>(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable('instance_count')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('n', 'integer', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO instance_count(id, n) SELECT 1, count(*) FROM instances`.execute(db);
  if (isPostgres(db)) {
    await sql.raw(`CREATE FUNCTION instance_count_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE instance_count SET n = n + (SELECT count(*) FROM added) WHERE id = 1;
        ELSE
          UPDATE instance_count SET n = n - (SELECT count(*) FROM removed) WHERE id = 1;
        END IF;
        RETURN NULL;
      END $$`).execute(db);
    await sql`CREATE TRIGGER instances_after_insert AFTER INSERT ON instances REFERENCING NEW TABLE AS added
      FOR EACH STATEMENT EXECUTE FUNCTION instance_count_change()`.execute(db);
    await sql`CREATE TRIGGER instances_after_delete AFTER DELETE ON instances REFERENCING OLD TABLE AS removed
      FOR EACH STATEMENT EXECUTE FUNCTION instance_count_change()`.execute(db);
    return;
  }
  await sql`CREATE TRIGGER instances_after_insert AFTER INSERT ON instances BEGIN
      UPDATE instance_count SET n = n + 1 WHERE id = 1;
    END`.execute(db);
  await sql`CREATE TRIGGER instances_after_delete AFTER DELETE ON instances BEGIN
      UPDATE instance_count SET n = n - 1 WHERE id = 1;
    END`.execute(db);
}

/** Every instance there is. */
export async function instanceCount(db: Db): Promise<number> {
  const row = await db.selectFrom('instance_count').select('n').where('id', '=', 1).executeTakeFirstOrThrow();
  return Number(row.n);
}
