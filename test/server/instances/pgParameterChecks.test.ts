import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Instance, InstanceConfig } from '../../../contracts/instances';
import { findInstanceRow } from '../../../server/db/instances';
import { pgPolicyTable } from '../../../server/engines/parameterPolicy';
import { pgSuperuserPassword } from '../../../server/engines/pg';
import { recordRevision } from '../../../server/instances/revisions';
import { instanceWorld, type InstanceWorld } from './world';

// What a group member can send to a PostgreSQL 15 instance's configuration, running and stopped:
// names that are no parameter, values PostgreSQL refuses, lists, and what could starve the host.

jest.setTimeout(240_000);

let world: InstanceWorld;
let pg: Instance;
let member: string;

const autoConf = () => path.join(world.dataDir, 'instances', pg.id, 'data', 'postgresql.auto.conf');
const readAutoConf = () => fs.readFileSync(autoConf(), 'utf8');
const autoConfLine = (name: string) => readAutoConf().split('\n').find((line) => line.startsWith(`${name} =`));
const put = (parameters: Record<string, string>, cookie?: string, apply: 'none' | 'reload' | 'restart' = 'none') =>
  world.call('PUT', `/instances/${pg.id}/config`, { parameters, apply }, cookie);

async function show(setting: string): Promise<string> {
  const row = (await findInstanceRow(world.db, pg.id))!;
  const client = new Client({ host: '127.0.0.1', port: pg.port, user: 'postgres', database: 'postgres', password: pgSuperuserPassword(world.service().runtime(row)) });
  await client.connect();
  try {
    return (await client.query<{ value: string }>('select current_setting($1) as value', [setting])).rows[0].value;
  } finally {
    await client.end();
  }
}

async function operate(action: 'start' | 'stop' | 'restart') {
  const res = await world.call('POST', `/instances/${pg.id}/${action}`, {});
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  expect((await world.instance(pg.id)).status).toBe(action === 'stop' ? 'stopped' : 'running');
}

/** A 400 validation problem whose errors name exactly these parameters, with nothing written. */
async function expectRefused(parameters: Record<string, string>, names: string[], cookie?: string): Promise<Record<string, string[]>> {
  const before = readAutoConf();
  const res = await put(parameters, cookie);
  expect({ status: res.statusCode, body: res.json() }).toMatchObject({ status: 400 });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const errors = res.json().errors as Record<string, string[]>;
  expect(Object.keys(errors).sort()).toEqual([...names].sort());
  for (const name of names) expect(errors[name]).toEqual([expect.stringContaining(name)]);
  expect(readAutoConf()).toBe(before);
  return errors;
}

beforeAll(async () => {
  world = await instanceWorld();
  const tenants = await world.groupWithMember('tenants', 'member@example.com');
  member = tenants.cookie;
  pg = await world.created({ name: 'checked', type: 'pg', groupId: tenants.groupId });
  expect(pg.status).toBe('running');
});

afterAll(() => world.destroy());

const inherited = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

describe('names that are no parameter', () => {
  it('are refused by name on a running instance, not answered with 500', async () => {
    for (const name of inherited) {
      expect(await expectRefused({ [name]: '1' }, [name], member)).toEqual({ [name]: [`Unknown parameter ${name}.`] });
    }
    await expectRefused({ constructor: '1', work_mem: '9MB' }, ['constructor'], member);
    // A unit named after one of them is no unit either.
    await expectRefused({ work_mem: '1constructor' }, ['work_mem'], member);
  });

  it('are refused on a stopped instance, which then starts as before', async () => {
    await operate('stop');
    for (const name of inherited) await expectRefused({ [name]: '1' }, [name], member);
    await expectRefused({ toString: 'x', work_mem: '9MB' }, ['toString'], member);
    await operate('start');
  });

  it('in a revision saved before they were refused, are refused when it is restored', async () => {
    const ok = await put({ work_mem: '5MB' }, member);
    expect(ok.statusCode).toBe(200);
    const clean = ok.json().revision as number;
    const tainted = await recordRevision(world.db, pg.id, 'member@example.com', new Date(), { constructor: 'x', toString: 'y', work_mem: '6MB' }, {});
    // Then reset, as restoring the clean revision did then: restoring the tainted one would write them again.
    await recordRevision(world.db, pg.id, 'member@example.com', new Date(), { constructor: '', toString: '', work_mem: '5MB' }, {});
    const restore = (revision: number) => world.call('POST', `/instances/${pg.id}/config/revisions/${revision}/restore`, { apply: 'none' }, member);

    for (const state of ['running', 'stopped'] as const) {
      if (state === 'stopped') await operate('stop');
      const before = readAutoConf();
      const res = await restore(tainted);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json().errors).sort()).toEqual(['constructor', 'toString']);
      expect(readAutoConf()).toBe(before);
    }
    // The newest revision still holds them: an earlier one can be restored all the same.
    expect((await put({ work_mem: '8MB' }, member)).statusCode).toBe(200);
    const back = await restore(clean);
    expect(back.statusCode).toBe(200);
    expect(readAutoConf()).not.toMatch(/constructor|toString/);
    await operate('start');
    expect(await show('work_mem')).toBe('5MB');
  });
});

describe('values PostgreSQL refuses', () => {
  it('answer 400 naming the parameter on a running instance, and nothing is written', async () => {
    const errors = await expectRefused(
      { lc_time: '/tmp/x', TimeZone: '../../etc/passwd', DateStyle: 'sometimes', log_timezone: 'Nowhere/Atlantis', lc_numeric: 'xx_YY.UTF-8' },
      ['lc_time', 'TimeZone', 'DateStyle', 'log_timezone', 'lc_numeric'],
      member,
    );
    expect(errors.DateStyle[0]).toMatch(/Unrecognized key word: "sometimes"/);
    // Refused by ALTER SYSTEM itself (the tablespace does not exist): nothing saved before it stays.
    await expectRefused({ work_mem: '9MB', default_tablespace: 'nowhere' }, ['default_tablespace'], member);
  });

  it('answer 400 on a stopped instance instead of stopping its next start', async () => {
    await operate('stop');
    await expectRefused({ lc_monetary: 'xx_YY', TimeZone: 'Nowhere/Atlantis', lc_time: '/tmp/x', DateStyle: 'sometimes' }, ['lc_monetary', 'TimeZone', 'lc_time', 'DateStyle'], member);
    expect((await put({ TimeZone: 'Europe/Paris', lc_time: 'C.UTF-8' }, member)).statusCode).toBe(200);
    await operate('start');
    expect(await show('TimeZone')).toBe('Europe/Paris');
  });
});

describe('list parameters', () => {
  it('keep their elements, written as ALTER SYSTEM writes them, on a running instance', async () => {
    const res = await put({ search_path: '"$user", public, "Sales Data"' }, member, 'reload');
    expect(res.statusCode).toBe(200);
    expect(autoConfLine('search_path')).toBe(`search_path = '"$user", public, "Sales Data"'`);
    expect(await show('search_path')).toBe('"$user", public, "Sales Data"');
    await expectRefused({ search_path: 'public, "unfinished' }, ['search_path'], member);
  });

  it('keep their elements on a stopped instance, read the same after the start', async () => {
    await operate('stop');
    expect((await put({ search_path: '"$user",public' }, member)).statusCode).toBe(200);
    expect(autoConfLine('search_path')).toBe(`search_path = '"$user", public'`);
    await operate('start');
    expect(await show('search_path')).toBe('"$user", public');
  });

  it('load only libraries PostgreSQL has, set by an admin', async () => {
    await expectRefused({ shared_preload_libraries: 'pg_stat_statements' }, ['shared_preload_libraries'], member);
    const missing = await expectRefused({ shared_preload_libraries: 'pg_stat_statements, no_such_library' }, ['shared_preload_libraries']);
    expect(missing.shared_preload_libraries[0]).toMatch(/no_such_library/);
    await expectRefused({ session_preload_libraries: '../../../tmp/evil' }, ['session_preload_libraries']);
    await expectRefused({ local_preload_libraries: 'auto_explain' }, ['local_preload_libraries']);

    expect((await put({ shared_preload_libraries: 'pg_stat_statements,auto_explain' })).statusCode).toBe(200);
    expect(autoConfLine('shared_preload_libraries')).toBe(`shared_preload_libraries = 'pg_stat_statements, auto_explain'`);
    await operate('restart');
    expect(await show('shared_preload_libraries')).toBe('pg_stat_statements, auto_explain');

    // An empty list is an empty list, not a library named "".
    expect((await put({ shared_preload_libraries: '' })).statusCode).toBe(200);
    expect(autoConfLine('shared_preload_libraries')).toBe(`shared_preload_libraries = ''`);
    await operate('restart');
    expect(await show('shared_preload_libraries')).toBe('');
  });
});

describe('what can starve the host', () => {
  it('is bounded for a member, and the bound is stated', async () => {
    const errors = await expectRefused(
      {
        work_mem: '512MB',
        maintenance_work_mem: '2GB',
        autovacuum_work_mem: '2GB',
        logical_decoding_work_mem: '2GB',
        hash_mem_multiplier: '100',
        temp_file_limit: '-1',
        max_locks_per_transaction: '100000',
        max_pred_locks_per_transaction: '100000',
      },
      ['work_mem', 'maintenance_work_mem', 'autovacuum_work_mem', 'logical_decoding_work_mem', 'hash_mem_multiplier', 'temp_file_limit', 'max_locks_per_transaction', 'max_pred_locks_per_transaction'],
      member,
    );
    expect(errors.work_mem).toEqual([expect.stringMatching(/^A member may set work_mem up to 256MB, an admin beyond: .+\.$/)]);
    expect(errors.temp_file_limit).toEqual([expect.stringMatching(/^A member may set temp_file_limit from 0 to 100GB, an admin beyond: .+\.$/)]);

    const config = (await world.call('GET', `/instances/${pg.id}/config`, undefined, member)).json() as InstanceConfig;
    expect(config.parameters.find((p) => p.name === 'work_mem')).toMatchObject({ policy: 'user', editable: true, unit: 'kB', max: 256 * 1024 });
    // Each bound is written in the unit PostgreSQL counts the parameter in.
    const bounded = Object.entries(pgPolicyTable).flatMap(([name, entry]) => (entry.policy === 'user' ? [{ name, unit: entry.bound.unit }] : []));
    expect(bounded.map(({ name }) => config.parameters.find((p) => p.name === name)).map((p) => p && { name: p.name, unit: p.unit })).toEqual(bounded);
    expect(config.parameters.find((p) => p.name === 'temp_file_limit')).toMatchObject({ min: 0, max: 100 * 1024 ** 2 });

    const within = await put({ work_mem: '256MB', maintenance_work_mem: '1GB', autovacuum_work_mem: '-1', temp_file_limit: '10GB', hash_mem_multiplier: '4' }, member);
    expect(within.statusCode).toBe(200);
  });

  it('is an admin\'s to raise beyond the bound', async () => {
    const admin = (await world.call('GET', `/instances/${pg.id}/config`)).json() as InstanceConfig;
    expect(admin.parameters.find((p) => p.name === 'work_mem')?.max).toBe(2147483647);
    const res = await put({ work_mem: '512MB', temp_file_limit: '-1', max_locks_per_transaction: '2048' });
    expect(res.statusCode).toBe(200);
    expect(autoConfLine('work_mem')).toBe(`work_mem = '512MB'`);
  });
});
