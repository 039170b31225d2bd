import { randomUUID } from 'node:crypto';
import { addMembers, createGroup } from '../../server/db/groups';
import { insertInstance } from '../../server/db/instances';
import { insertLogEntries, type NewLogEntry } from '../../server/db/logs';
import { csvField } from '../../server/routes/logs';
import { addUser, bearerLogin, expectProblem, setup, type Harness } from './helpers';

// GET/POST /logs/…: scoping per principal, filters, search, paging, clear with its audit, export
// files and retention, against the real app and store.

let h: Harness;
let admin: string;
let member: string;
let outsider: string;
let mine: string;
let theirs: string;

async function instance(name: string, groupId: string | null): Promise<string> {
  const id = randomUUID();
  const now = h.clock.now().toISOString();
  await insertInstance(h.db, {
    id, name, type: 'pg', status: 'running', desired_state: 'running', status_reason: null,
    health_level: 'good', health_checks: '[]', group_id: groupId, engine_version: '15.0', port: 20000 + Math.floor(Math.random() * 10000), peer_port: null,
    description: '', created_at: now, created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
  });
  return id;
}

const at = (minute: number) => new Date(Date.UTC(2030, 0, 2, 3, minute)).toISOString();
const entry = (e: Partial<NewLogEntry> & Pick<NewLogEntry, 'message'>): NewLogEntry => ({
  timestamp: at(0), level: 'information', instanceId: null, handler: 'warden', ...e,
});

function get(auth: string, url: string) {
  return h.app.inject({ method: 'GET', url, headers: { authorization: auth } });
}
function post(auth: string, url: string) {
  return h.app.inject({ method: 'POST', url, headers: { authorization: auth }, payload: {} });
}
const messages = (res: { json(): unknown }) => (res.json() as { items: { message: string }[] }).items.map((e) => e.message);

beforeEach(async () => {
  h = await setup({ config: { logRetentionMs: 0, logMaxBytes: 0 }, supervise: false });
  await addUser(h.db, 'admin@example.com', 'admin');
  const memberUser = await addUser(h.db, 'member@example.com');
  await addUser(h.db, 'outsider@example.com');
  const group = await createGroup(h.db, { name: 'team' }, h.clock.now());
  const other = await createGroup(h.db, { name: 'other' }, h.clock.now());
  await addMembers(h.db, group.id, [memberUser.id], h.clock.now());
  mine = await instance('orders-db', group.id);
  theirs = await instance('billing-db', other.id);
  await insertLogEntries(h.db, [
    entry({ timestamp: at(1), message: 'control plane started' }),
    entry({ timestamp: at(2), instanceId: mine, handler: 'postgres', level: 'warning', message: 'checkpoints are occurring too frequently' }),
    entry({ timestamp: at(3), instanceId: mine, handler: 'postgres', level: 'error', message: 'relation "orders" does not exist', properties: { sqlstate: '42P01', database: 'shop' } }),
    entry({ timestamp: at(4), instanceId: mine, handler: 'warden', level: 'information', message: 'backup finished' }),
    entry({ timestamp: at(5), instanceId: theirs, handler: 'postgres', level: 'error', message: 'billing secret failure' }),
  ]);
  admin = await bearerLogin(h, 'admin@example.com');
  member = await bearerLogin(h, 'member@example.com');
  outsider = await bearerLogin(h, 'outsider@example.com');
});
afterEach(() => h.close());

describe('GET /logs/log-levels', () => {
  it('answers the six levels, lowest first', async () => {
    const res = await get(member, '/logs/log-levels');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(['verbose', 'debug', 'information', 'warning', 'error', 'fatal']);
  });
});

describe('GET /logs/all scoping', () => {
  it('shows an admin every entry, newest first', async () => {
    const res = await get(admin, '/logs/all');
    expect(res.statusCode).toBe(200);
    expect(messages(res)).toEqual([
      'billing secret failure', 'backup finished', 'relation "orders" does not exist', 'checkpoints are occurring too frequently', 'control plane started',
    ]);
    expect(res.json()).toMatchObject({ total: 5, totalExact: true, page: 1, pageSize: 100, nextCursor: null });
  });

  it("shows a member only their groups' instances, never the control plane", async () => {
    const res = await get(member, '/logs/all');
    expect(messages(res)).toEqual(['backup finished', 'relation "orders" does not exist', 'checkpoints are occurring too frequently']);
    expect(res.json().total).toBe(3);
  });

  it('shows a user in no group nothing', async () => {
    const res = await get(outsider, '/logs/all');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ items: [], total: 0 });
  });

  it("answers 404 for another group's instance and 403 for the control plane to a regular user", async () => {
    expectProblem(await get(member, `/logs/all?instanceId=${theirs}`), 404);
    expectProblem(await get(outsider, `/logs/all?instanceId=${mine}`), 404);
    expectProblem(await get(member, '/logs/all?instanceId=none'), 403);
    expect(messages(await get(admin, '/logs/all?instanceId=none'))).toEqual(['control plane started']);
  });
});

describe('GET /logs/all filters', () => {
  it('combines levels, minimum level, instance, handler and time range', async () => {
    expect(messages(await get(admin, '/logs/all?minLevel=error'))).toEqual(['billing secret failure', 'relation "orders" does not exist']);
    expect(messages(await get(admin, `/logs/all?minLevel=warning&instanceId=${mine}&handler=postgres`))).toEqual([
      'relation "orders" does not exist', 'checkpoints are occurring too frequently',
    ]);
    expect(messages(await get(admin, '/logs/all?level=information,warning&minLevel=warning'))).toEqual(['checkpoints are occurring too frequently']);
    expect(messages(await get(admin, `/logs/all?from=${at(2)}&to=${at(4)}&sort=timestamp`))).toEqual([
      'checkpoints are occurring too frequently', 'relation "orders" does not exist',
    ]);
  });

  it('refuses bad filters with a validation problem', async () => {
    expect(expectProblem(await get(admin, '/logs/all?level=loud'), 400).errors).toBeDefined();
    expect(expectProblem(await get(admin, `/logs/all?from=${at(5)}&to=${at(1)}`), 400).errors).toHaveProperty('to');
    expectProblem(await get(admin, '/logs/all?pageSize=100000'), 400);
    expectProblem(await get(admin, '/logs/all?cursor=garbage'), 400);
    expectProblem(await get(admin, '/logs/all?surprise=1'), 400);
  });

  it('pages by cursor without repeating or skipping while entries arrive', async () => {
    const first = (await get(admin, '/logs/all?pageSize=2')).json();
    expect(first.items.map((e: { message: string }) => e.message)).toEqual(['billing secret failure', 'backup finished']);
    expect(first.nextCursor).toEqual(expect.any(String));
    await insertLogEntries(h.db, [entry({ timestamp: at(9), message: 'a newer entry' })]);
    const second = await get(admin, `/logs/all?pageSize=2&cursor=${encodeURIComponent(first.nextCursor)}`);
    expect(messages(second)).toEqual(['relation "orders" does not exist', 'checkpoints are occurring too frequently']);
    const third = (await get(admin, `/logs/all?pageSize=2&cursor=${encodeURIComponent(second.json().nextCursor)}`)).json();
    expect(third.items.map((e: { message: string }) => e.message)).toEqual(['control plane started']);
    expect(third.nextCursor).toBeNull();
    // page/pageSize still work as SPEC has them.
    expect(messages(await get(admin, '/logs/all?pageSize=2&page=2'))).toEqual(['backup finished', 'relation "orders" does not exist']);
  });
});

describe('GET /logs/all search', () => {
  it('finds every word in messages and properties, within scope', async () => {
    expect(messages(await get(admin, '/logs/all?search=orders%20exist'))).toEqual(['relation "orders" does not exist']);
    // Words of the properties (a value and a key) match too.
    expect(messages(await get(admin, '/logs/all?search=42P01'))).toEqual(['relation "orders" does not exist']);
    expect(messages(await get(admin, '/logs/all?search=sqlstate'))).toEqual(['relation "orders" does not exist']);
    expect(messages(await get(admin, '/logs/all?search=FAILURE'))).toEqual(['billing secret failure']);
    // Out of the member's scope, so not found for them.
    expect(messages(await get(member, '/logs/all?search=billing'))).toEqual([]);
  });

  it('reads search operators as plain words and refuses a search without any word', async () => {
    // As an FTS operator OR would find both entries; as a word it occurs in neither.
    expect(messages(await get(admin, `/logs/all?search=${encodeURIComponent('orders OR billing')}`))).toEqual([]);
    expect(messages(await get(admin, `/logs/all?search=${encodeURIComponent('"orders" (exist')}`))).toEqual(['relation "orders" does not exist']);
    expect(expectProblem(await get(admin, `/logs/all?search=${encodeURIComponent('"*()')}`), 400).errors).toHaveProperty('search');
  });

  it('keeps the index in step when entries are removed', async () => {
    await post(admin, `/logs/clear?instanceId=${theirs}`);
    expect(messages(await get(admin, '/logs/all?search=billing'))).toEqual([]);
  });
});

describe('GET /logs/size', () => {
  it("answers the caller's scope", async () => {
    const all = (await get(admin, '/logs/size')).json();
    expect(all).toMatchObject({ entries: 5, oldest: at(1), newest: at(5) });
    expect(all.bytes).toBeGreaterThan(100);
    const own = (await get(member, '/logs/size')).json();
    expect(own).toMatchObject({ entries: 3, oldest: at(2), newest: at(4) });
    expect(own.bytes).toBeLessThan(all.bytes);
    expect((await get(outsider, '/logs/size')).json()).toEqual({ bytes: 0, entries: 0, oldest: null, newest: null });
  });
});

describe('GET /logs/histogram', () => {
  it('counts entries per level in equal slices of the range, within scope', async () => {
    const res = await get(member, `/logs/histogram?from=${at(0)}&to=${at(6)}&buckets=3`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      from: at(0), to: at(6), bucketMs: 120_000,
      buckets: [
        { start: at(0), counts: {} },
        { start: at(2), counts: { warning: 1, error: 1 } },
        { start: at(4), counts: { information: 1 } },
      ],
    });
    expectProblem(await get(member, '/logs/histogram'), 400);
  });
});

describe('POST /logs/clear', () => {
  it("lets a member clear their instance's entries before a time and of one level, audited and logged", async () => {
    const res = await post(member, `/logs/clear?instanceId=${mine}&before=${at(4)}&level=error`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ removed: 1 });
    const left = messages(await get(admin, `/logs/all?instanceId=${mine}`));
    expect(left).toContain('checkpoints are occurring too frequently');
    expect(left).not.toContain('relation "orders" does not exist');
    expect(left[0]).toBe(`member@example.com cleared 1 error entries of instance ${mine} before ${at(4)}`);
    const audit = await h.db.selectFrom('audit_entries').selectAll().where('action', '=', 'logs.clear').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ target: mine, outcome: 'success' });
    expect(JSON.parse(audit[0].detail!)).toMatchObject({ instanceId: mine, level: 'error', removed: 1 });
    expect((await get(admin, '/logs/size')).json().entries).toBe(5);
  });

  it('refuses a member anything beyond their instances, and audits the refusal', async () => {
    expectProblem(await post(member, '/logs/clear'), 403);
    expectProblem(await post(member, '/logs/clear?instanceId=none'), 403);
    expectProblem(await post(member, `/logs/clear?instanceId=${theirs}`), 404);
    expectProblem(await post(admin, '/logs/clear?before=yesterday'), 400);
    expect((await get(admin, '/logs/size')).json().entries).toBe(5);
    const audit = await h.db.selectFrom('audit_entries').select(['outcome']).where('action', '=', 'logs.clear').execute();
    expect(audit.map((a) => a.outcome)).toEqual(['failure', 'failure', 'failure']);
  });

  it('lets an admin clear everything', async () => {
    const res = await post(admin, '/logs/clear');
    expect(res.json()).toEqual({ removed: 5 });
    // Only the record of the clearing is left.
    expect(messages(await get(admin, '/logs/all'))).toEqual(['admin@example.com cleared 5 entries of every instance and the control plane']);
    expect((await get(admin, '/logs/size')).json().entries).toBe(1);
  });
});

describe('GET /logs/export', () => {
  it('streams NDJSON of the filtered scope with a file name that says scope and range', async () => {
    const res = await get(member, `/logs/export?instanceId=${mine}&from=${at(0)}&to=${at(10)}&format=ndjson`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="warden-logs_orders-db_20300102T030000Z-20300102T031000Z.ndjson"');
    const lines = res.body.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((e) => e.message)).toEqual(['backup finished', 'relation "orders" does not exist', 'checkpoints are occurring too frequently']);
    expect(lines[1].properties).toEqual({ sqlstate: '42P01', database: 'shop' });
  });

  it("never exports another group's entries", async () => {
    const res = await get(member, '/logs/export');
    expect(res.body).not.toContain('billing');
    expect(res.body.trimEnd().split('\n')).toHaveLength(3);
    expect(res.headers['content-disposition']).toMatch(/filename="warden-logs_all_start-\d{8}T\d{4,6}Z\.ndjson"/);
  });

  it('quotes CSV fields per RFC 4180', async () => {
    await insertLogEntries(h.db, [entry({ timestamp: at(7), instanceId: mine, message: 'a, "quoted"\nsecond line', properties: { note: 'x,y' } })]);
    const res = await get(member, `/logs/export?format=csv&from=${at(7)}`);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const [header, row, end] = res.body.split('\r\n');
    expect(header).toBe('id,timestamp,level,instanceId,handler,message,properties');
    expect(row).toBe(`6,${at(7)},information,${mine},warden,"a, ""quoted""\nsecond line","{""note"":""x,y""}"`);
    expect(end).toBe('');
  });

  it('exports many entries across batches, each once', async () => {
    const many = Array.from({ length: 4500 }, (_, i) => entry({ timestamp: new Date(Date.UTC(2030, 0, 3) + (i % 7) * 1000).toISOString(), instanceId: mine, message: `bulk ${i}` }));
    await insertLogEntries(h.db, many);
    const res = await get(member, `/logs/export?format=ndjson&handler=warden&from=2030-01-03T00:00:00Z&sort=timestamp`);
    const ids = res.body.trimEnd().split('\n').map((line) => (JSON.parse(line) as { id: number }).id);
    expect(ids).toHaveLength(4500);
    expect(new Set(ids).size).toBe(4500);
  });
});

describe('csvField', () => {
  it('leaves plain text alone and quotes what needs it', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\r\nbreak')).toBe('"line\r\nbreak"');
  });
});

describe('retention', () => {
  it('trims entries past the age in batches and logs the trim', async () => {
    await h.close();
    h = await setup({ config: { logRetentionMs: 3_600_000, logMaxBytes: 0 }, supervise: false });
    // The fake clock stands at 2030-01-02T03:04:05Z.
    await insertLogEntries(h.db, [
      ...Array.from({ length: 2500 }, (_, i) => entry({ timestamp: '2030-01-01T00:00:00.000Z', message: `old ${i}` })),
      entry({ timestamp: '2030-01-02T03:00:00.000Z', message: 'recent' }),
    ]);
    expect(await h.app.logRetention.trimOnce()).toBe(2500);
    const rows = await h.db.selectFrom('logs').select(['message']).orderBy('id').execute();
    expect(rows.map((r) => r.message)).toEqual(['recent', 'Log retention removed 2500 older than 2030-01-02T02:04:05.000Z']);
    const totals = await h.db.selectFrom('log_totals').selectAll().execute();
    expect(totals).toEqual([{ scope: '', entries: 2, bytes: expect.any(Number) }]);
  });

  it('trims the oldest entries until the store fits the byte cap', async () => {
    await h.close();
    h = await setup({ config: { logRetentionMs: 0, logMaxBytes: 20_000 }, supervise: false });
    await insertLogEntries(h.db, Array.from({ length: 1000 }, (_, i) => entry({ timestamp: at(30), message: `entry ${i} ${'x'.repeat(60)}` })));
    const removed = await h.app.logRetention.trimOnce();
    expect(removed).toBeGreaterThan(0);
    const left = await h.db.selectFrom('logs').select(['message']).orderBy('id').execute();
    expect(left[left.length - 1].message).toMatch(/^Log retention removed \d+ oldest to fit 20000 bytes$/);
    // The newest stayed, the oldest went.
    expect(left.some((r) => r.message.startsWith('entry 999 '))).toBe(true);
    expect(left.some((r) => r.message.startsWith('entry 0 '))).toBe(false);
    const { bytes } = await h.db.selectFrom('log_totals').select((eb) => eb.fn.sum<number>('bytes').as('bytes')).executeTakeFirstOrThrow();
    expect(Number(bytes)).toBeLessThanOrEqual(20_000 + 200);
  });
});
