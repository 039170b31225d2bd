import type { Client } from 'pg';
import { scriptLimits, type ScriptSchema } from '../../contracts/scripts';

// The tables and columns the script editor completes from (GET /instances/{id}/script/schema): read
// from the instance's default database by the control plane's superuser session, bounded in count so
// a database with thousands of tables cannot make the answer or the editor heavy.

/** Tables, views and foreign tables of the user's schemas, by schema and name, with their first columns in order. */
export async function readPgSchema(client: Client): Promise<ScriptSchema['tables']> {
  const { rows } = await client.query<{ schema: string; name: string; columns: { name: string; type: string }[] }>(
    `with tables as (
       select c.oid, n.nspname as schema, c.relname as name
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p', 'v', 'm', 'f')
          and n.nspname not in ('pg_catalog', 'information_schema')
          and n.nspname not like 'pg_toast%' and n.nspname not like 'pg_temp%'
        order by 2, 3
        limit $1
     )
     select t.schema, t.name,
            coalesce((select json_agg(json_build_object('name', a.attname, 'type', ty.typname) order by a.attnum)
                        from (select attname, atttypid, attnum from pg_attribute
                               where attrelid = t.oid and attnum > 0 and not attisdropped
                               order by attnum limit $2) a
                        join pg_type ty on ty.oid = a.atttypid), '[]'::json) as columns
       from tables t
      order by t.schema, t.name`,
    [scriptLimits.maxSchemaTables, scriptLimits.maxSchemaColumns],
  );
  return rows;
}
