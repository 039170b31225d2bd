import { randomUUID } from 'node:crypto';
import type { SparklinesResponse } from '../../../contracts/statistics';
import { addMembers, createGroup } from '../../../server/db/groups';
import { insertInstance } from '../../../server/db/instances';
import { insertSamples, seriesIdOf } from '../../../server/db/metrics';
import { encodeValues, type MetricValues } from '../../../server/metrics/series';
import { addUser, cookieLogin, setup, type Harness } from '../helpers';

// GET /instances/sparklines over a store filled by hand: which rolled-up minutes and raw samples
// make the hour's points, and which of the named instances the caller gets back at all.

const minute = 60_000;
let h: Harness;
let now: number;
/** The start of the current minute: the last point's time. */
let current: number;
const cookies: Record<'admin' | 'member' | 'loner', string> = { admin: '', member: '', loner: '' };
/** Ports are unique in the store, though none of these instances runs. */
let ports = 0;
const ids = { busy: '', quiet: '', long: '', hidden: '', groupless: '' };

async function anInstance(name: string, groupId: string | null): Promise<string> {
  const id = randomUUID();
  await insertInstance(h.db, {
    id, name, type: 'pg', status: 'running', desired_state: 'running', status_reason: null,
    health_level: 'good', health_checks: '[]', group_id: groupId, engine_version: '15.0', port: 21000 + ++ports, peer_port: null,
    description: '', created_at: new Date(now).toISOString(), created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
  });
  return id;
}

async function samples(instanceId: string, resolution: number, rows: [number, MetricValues][]) {
  const seriesId = await seriesIdOf(h.db, instanceId);
  await insertSamples(h.db, rows.map(([at, values]) => ({ seriesId, resolution, at, data: encodeValues(values) })));
}

const sparklines = (who: keyof typeof cookies, query: string) =>
  h.app.inject({ method: 'GET', url: `/instances/sparklines?${query}`, headers: { cookie: cookies[who] } });

async function itemsOf(who: keyof typeof cookies, ids: string[], name = 'cpu_percent') {
  const res = await sparklines(who, `ids=${ids.join(',')}&name=${name}`);
  expect(res.statusCode).toBe(200);
  const body = res.json<SparklinesResponse>();
  return Object.fromEntries(body.items.map((item) => [item.instanceId, item.points]));
}

beforeAll(async () => {
  h = await setup({ supervise: false });
  now = h.clock.now().getTime();
  current = Math.floor(now / minute) * minute;
  await addUser(h.db, 'admin@example.com', 'admin');
  const member = await addUser(h.db, 'member@example.com');
  await addUser(h.db, 'loner@example.com');
  const group = (await createGroup(h.db, { name: 'payments' }, h.clock.now())).id;
  const other = (await createGroup(h.db, { name: 'search' }, h.clock.now())).id;
  await addMembers(h.db, group, [member.id], h.clock.now());
  for (const who of ['admin', 'member', 'loner'] as const) cookies[who] = await cookieLogin(h, `${who}@example.com`);

  ids.busy = await anInstance('busy', group);
  ids.quiet = await anInstance('quiet', group);
  ids.long = await anInstance('long', group);
  ids.hidden = await anInstance('hidden', other);
  ids.groupless = await anInstance('ungrouped', null);
  // Minutes rolled up to 4 minutes ago; raw samples in the minutes since, and one already rolled up.
  await samples(ids.busy, 1, [
    [current - 60 * minute, { cpu_percent: 50 }],
    [current - 59 * minute, { cpu_percent: 1, connections_total: 7 }],
    [current - 4 * minute, { cpu_percent: 12 }],
  ]);
  await samples(ids.busy, 0, [
    [current - 4 * minute + 30_000, { cpu_percent: 99 }],
    [current - 3 * minute, { cpu_percent: 2 }],
    [current - 3 * minute + 10_000, { cpu_percent: 4 }],
    [current, { cpu_percent: 5 }],
  ]);
  await samples(ids.long, 1, Array.from({ length: 90 }, (_, index): [number, MetricValues] => [current - (89 - index) * minute, { cpu_percent: index }]));
  await samples(ids.hidden, 0, [[current, { cpu_percent: 3 }]]);
  await samples(ids.groupless, 0, [[current, { cpu_percent: 4 }]]);
});
afterAll(() => h.close());

describe('the hour of points', () => {
  it('are the rolled-up minutes in the hour, then the newer raw samples averaged a minute at a time', async () => {
    const res = await sparklines('member', `ids=${ids.busy}&name=cpu_percent`);
    expect(res.json()).toEqual({
      name: 'cpu_percent',
      unit: 'percent',
      step: minute,
      from: current - 59 * minute,
      to: current + minute,
      items: [
        {
          instanceId: ids.busy,
          points: [
            [current - 59 * minute, 1],
            [current - 4 * minute, 12],
            [current - 3 * minute, 3],
            [current, 5],
          ],
        },
      ],
    });
  });

  it('are at most sixty, the newest ones', async () => {
    const points = (await itemsOf('member', [ids.long]))[ids.long];
    expect(points).toHaveLength(60);
    expect(points[0]).toEqual([current - 59 * minute, 30]);
    expect(points[59]).toEqual([current, 89]);
  });

  it('are empty for an instance without samples of the metric, which is still listed', async () => {
    expect(await itemsOf('member', [ids.quiet, ids.busy], 'connections_total')).toEqual({
      [ids.quiet]: [],
      [ids.busy]: [[current - 59 * minute, 7]],
    });
  });
});

describe('the instances answered', () => {
  const all = () => [ids.busy, ids.quiet, ids.hidden, ids.groupless];

  it("are a member's own groups' only: another group's, a group-less one and an unknown id are absent alike", async () => {
    const items = await itemsOf('member', [...all(), randomUUID()]);
    expect(Object.keys(items).sort()).toEqual([ids.busy, ids.quiet].sort());
  });

  it('are none for a user in no group', async () => {
    expect(await itemsOf('loner', all())).toEqual({});
  });

  it('are every named one for an admin, each once however often it is named', async () => {
    const res = await sparklines('admin', `ids=${[...all(), ids.busy].join(',')}&name=cpu_percent`);
    const body = res.json<SparklinesResponse>();
    expect(body.items.map((item) => item.instanceId).sort()).toEqual(all().sort());
    expect(Object.fromEntries(body.items.map((item) => [item.instanceId, item.points]))[ids.hidden]).toEqual([[current, 3]]);
  });
});

describe('a bad query', () => {
  it.each([
    ['no ids', 'name=cpu_percent'],
    ['an empty id', `ids=${randomUUID()},,${randomUUID()}&name=cpu_percent`],
    ['201 ids', `ids=${Array.from({ length: 201 }, () => randomUUID()).join(',')}&name=cpu_percent`],
    ['an id with other characters', 'ids=a%27%20or%201%3D1&name=cpu_percent'],
    ['an unknown metric', `ids=${randomUUID()}&name=load_average`],
    ['no metric', `ids=${randomUUID()}`],
    ['an unknown parameter', `ids=${randomUUID()}&name=cpu_percent&from=2030-01-01T00:00:00Z`],
  ])('answers 400 for %s', async (_, query) => {
    const res = await sparklines('admin', query);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('accepts 200 ids', async () => {
    const res = await sparklines('admin', `ids=${[ids.busy, ...Array.from({ length: 199 }, () => randomUUID())].join(',')}&name=cpu_percent`);
    expect(res.statusCode).toBe(200);
    expect(res.json<SparklinesResponse>().items.map((item) => item.instanceId)).toEqual([ids.busy]);
  });
});

it('asks for a session', async () => {
  expect((await h.app.inject({ method: 'GET', url: `/instances/sparklines?ids=${ids.busy}&name=cpu_percent` })).statusCode).toBe(401);
});
