import { Client } from 'pg';
import type { Instance } from '../../../contracts/instances';
import type { ScriptSchema } from '../../../contracts/scripts';
import { addMembers, createGroup } from '../../../server/db/groups';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// GET /instances/{id}/script/schema on real engines: the tables and columns of a running pg
// instance's default database, for the script editor's completion; nothing for etcd or a stopped one.

jest.setTimeout(300_000);

let world: InstanceWorld;
let shop: Instance;
let config: Instance;
let member: string;
let outsider: string;

async function asOwner(statements: string[]): Promise<void> {
  const { password } = (await world.call('POST', `/instances/${shop.id}/connection/secret`, {})).json() as { password: string };
  const client = new Client({ host: '127.0.0.1', port: shop.port, user: 'app', database: 'app', password });
  client.on('error', () => undefined);
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

const schemaOf = (instance: Instance, cookie?: string) => world.call('GET', `/instances/${instance.id}/script/schema`, undefined, cookie);

beforeAll(async () => {
  world = await instanceWorld();
  const group = await createGroup(world.db, { name: 'shop-team' }, new Date());
  member = await world.cookieFor('member@example.com');
  outsider = await world.cookieFor('outsider@example.com');
  const memberId = (await world.db.selectFrom('users').select('id').where('email', '=', 'member@example.com').executeTakeFirstOrThrow()).id;
  await addMembers(world.db, group.id, [memberId], new Date());
  const pg = await world.call('POST', '/instances', { name: 'shop', type: 'pg', groupId: group.id });
  const etcd = await world.call('POST', '/instances', { name: 'config', type: 'etcd', groupId: group.id });
  await world.service().idle();
  shop = await world.instance(pg.json().id);
  config = await world.instance(etcd.json().id);
  await asOwner([
    'create table items (id bigint primary key, "Display Name" text)',
    'create schema sales',
    'create table sales.orders (id int, item bigint, placed_at timestamptz)',
    'alter table sales.orders drop column item',
    'create view sales.recent as select id from sales.orders',
  ]);
});

afterAll(async () => {
  await world.destroy();
});

describe('the schema the script editor completes from', () => {
  it('lists the user tables and views of the default database with their columns and types, in order', async () => {
    const res = await schemaOf(shop, member);
    expect(res.statusCode).toBe(200);
    const body = res.json() as ScriptSchema;
    expect(body.tables).toEqual([
      {
        schema: 'public',
        name: 'items',
        columns: [
          { name: 'id', type: 'int8' },
          { name: 'Display Name', type: 'text' },
        ],
      },
      {
        schema: 'sales',
        name: 'orders',
        // A dropped column is gone.
        columns: [
          { name: 'id', type: 'int4' },
          { name: 'placed_at', type: 'timestamptz' },
        ],
      },
      { schema: 'sales', name: 'recent', columns: [{ name: 'id', type: 'int4' }] },
    ]);
    expect(Number.isNaN(Date.parse(body.readAt))).toBe(false);
  });

  it('is 404 for a caller outside the instance’s group, as every instance call', async () => {
    const res = await schemaOf(shop, outsider);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404 });
    expect((await schemaOf(config, outsider)).statusCode).toBe(404);
  });

  it('answers no tables for etcd', async () => {
    const res = await schemaOf(config, member);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ tables: [], readAt: expect.any(String) });
  });

  it('answers no tables for a stopped instance', async () => {
    expect((await world.call('POST', `/instances/${shop.id}/stop`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect((await world.instance(shop.id)).status).toBe('stopped');
    const res = await schemaOf(shop, member);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ tables: [], readAt: expect.any(String) });
  });

  it('answers no tables, and why, for an instance listed as running that does not answer', async () => {
    // As after a crash the control plane has not noticed yet: the row says running, nothing listens.
    await world.db.updateTable('instances').set({ status: 'running' }).where('id', '=', shop.id).execute();
    const res = await schemaOf(shop, member);
    expect(res.statusCode).toBe(200);
    const body = res.json() as ScriptSchema;
    expect(body.tables).toEqual([]);
    expect(body.unreadable).toMatch(/^The instance's tables could not be read: the instance did not answer \(E[A-Z]+\)\.$/);
    expect(body.unreadable).not.toContain(world.dataDir);
  });
});
