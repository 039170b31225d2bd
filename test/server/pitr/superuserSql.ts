import { Client } from 'pg';
import { findInstanceRow } from '../../../server/db/instances';
import { pgSocketDir, pgSuperuserPassword } from '../../../server/engines/pg';
import type { InstanceWorld } from '../instances/world';

/** Runs SQL on an instance of the world as its superuser, over its socket (what an application's writes stand in for). */
export function superuserSql(world: () => InstanceWorld) {
  return async <T extends Record<string, unknown>>(instanceId: string, text: string, database = 'app'): Promise<T[]> => {
    const row = (await findInstanceRow(world().db, instanceId))!;
    const rt = world().service().runtime(row);
    const client = new Client({ host: pgSocketDir(rt), port: rt.port, user: 'postgres', database, password: pgSuperuserPassword(rt) });
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  };
}
