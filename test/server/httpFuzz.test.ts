import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import fc from 'fast-check';
import { goodPassword, origin } from './helpers';

// Random and boundary requests to every route of the OpenAPI document the server builds (DESIGN §6,
// §11 "Inputs"), as an admin, a regular member and signed out, by cookie or bearer. Pass: no 5xx,
// every error a problem document, and the server process never dies. The real app and store run in
// a child process (test/server/fuzzServer.ts) so that an error escaping to the process ends it as
// it would end Warden; instances there run the inert engine, so creating hundreds of them spawns no
// PostgreSQL or etcd (the engines have their own tests).
//
// `npm test` runs 2,000 requests; `npm run fuzz` (WARDEN_FUZZ_RUNS) runs the long mode. Set
// WARDEN_FUZZ_SEED to replay a run; the summary line prints the seed.

const runs = Number(process.env.WARDEN_FUZZ_RUNS ?? 2000);
const seed = Number(process.env.WARDEN_FUZZ_SEED ?? Date.now() % 2 ** 31);
jest.setTimeout(Math.max(180_000, runs * 30));

interface Schema {
  type?: string;
  enum?: unknown[];
  format?: string;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
}

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: { name: string; schema: Schema }[];
  body: Schema | null;
}

type Who = 'admin' | 'member' | 'anonymous';

interface FuzzRequest {
  op: number;
  who: Who;
  bearer: boolean;
  path: string[];
  query: [string, string][];
  body: { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; type: string } | { kind: 'none' };
}

// A body value standing for a JSON number no JavaScript value serializes to: 1e309 parses as Infinity.
const huge = '\u0000huge\u0000';

const evilStrings = [
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '1.5',
  '9007199254740993',
  'null',
  'true',
  '[]',
  '{}',
  '../../etc/passwd',
  '%00',
  '\u0000',
  '\u0007\u001b[31m',
  '\r\nX-Injected: 1',
  "' or 1=1 --",
  '"; drop table users; --',
  '${jndi:x}',
  '<script>alert(1)</script>',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ☃ 日本語 \u202e',
  '\ud800',
  'a'.repeat(300),
  'x'.repeat(5000),
  '00000000-0000-0000-0000-000000000000',
  '2030-01-02T03:04:05.000Z',
  '9999-99-99',
  'admin@warden.local',
  '* * * * *',
];

const evilNumbers = [0, -1, 1, 1.5, -0.5, 200, 201, 1_000_000, 1_000_001, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e20, Number.MAX_VALUE];

let server: ChildProcess;
let base: string;
const operations: Operation[] = [];
const credentials: Record<Who, string | null> = { admin: null, member: null, anonymous: null };
const bearers: Record<Who, string | null> = { admin: null, member: null, anonymous: null };
/** Identifiers that exist, so requests reach past "not found" into the handlers. */
const known: string[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-fuzz-'));
fs.chmodSync(dataDir, 0o711);
let serverErrors = '';

/** How the server process ended, if it did. */
const deaths: string[] = [];

/** A value of the schema's type, near its limits, or of another type altogether. */
function valueOf(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.constantFrom(...evilNumbers),
    fc.constant(huge),
    fc.constantFrom(...evilStrings),
    fc.constant([]),
    fc.constant({}),
    fc.constant({ $ne: '' }),
  );
  const typed: fc.Arbitrary<unknown>[] = [];
  if (schema.enum) typed.push(fc.constantFrom(...schema.enum));
  if (schema.anyOf) for (const option of schema.anyOf) typed.push(valueOf(option, depth + 1));
  switch (schema.type) {
    case 'string':
      typed.push(
        fc.string({ maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 20 }),
        fc.constantFrom(...evilStrings),
        fc.constantFrom(...known),
        fc.nat({ max: 3 }).map((n) => 'a'.repeat(Math.max(0, (schema.maxLength ?? 64) - 1 + n))),
      );
      if (schema.format === 'date-time' || schema.format === 'date') typed.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, schema.format === 'date' ? 10 : undefined)));
      if (schema.format === 'email') typed.push(fc.emailAddress());
      break;
    case 'integer':
    case 'number':
      typed.push(
        fc.integer(),
        fc.double(),
        fc.constantFrom(...evilNumbers),
        fc.constant(huge),
        ...(schema.minimum !== undefined ? [fc.constantFrom(schema.minimum - 1, schema.minimum, schema.minimum + 0.5)] : []),
        ...(schema.maximum !== undefined ? [fc.constantFrom(schema.maximum, schema.maximum + 1)] : []),
      );
      break;
    case 'boolean':
      typed.push(fc.boolean(), fc.constantFrom('true', 'false', 'yes', 0, 1));
      break;
    case 'array':
      typed.push(fc.array(depth < 3 ? valueOf(schema.items ?? {}, depth + 1) : wrong, { maxLength: 5 }), fc.array(fc.constant('a'), { minLength: 100, maxLength: 300 }));
      break;
    case 'object':
      typed.push(depth < 3 ? objectOf(schema, depth + 1) : fc.constant({}));
      break;
  }
  if (schema.nullable) typed.push(fc.constant(null));
  if (typed.length === 0) return wrong;
  return fc.oneof({ arbitrary: fc.oneof(...typed), weight: 4 }, { arbitrary: wrong, weight: 1 });
}

/** Some or all declared fields (required ones mostly present), sometimes an unknown one. */
function objectOf(schema: Schema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const fields = properties.map(([name, property]) =>
    fc.option(valueOf(property, depth).map((value) => [name, value] as const), { freq: required.has(name) ? 10 : 2, nil: undefined }),
  );
  const open = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : null;
  const extra = fc.option(
    fc.tuple(fc.constantFrom('isAdmin', '__proto__', 'constructor', 'x'.repeat(200), 'ünïcode', ''), open ? valueOf(open, depth) : fc.constantFrom<unknown>(1, 'a', null)),
    { freq: 4, nil: undefined },
  );
  const openFields = open ? fc.array(fc.tuple(fc.string({ maxLength: 70 }), valueOf(open, depth)), { maxLength: 4 }) : fc.constant([]);
  return fc.tuple(fc.tuple(...fields), extra, openFields).map(([present, more, more2]) => {
    const object: Record<string, unknown> = {};
    for (const field of present) if (field) object[field[0]] = field[1];
    for (const [name, value] of [...(more ? [more] : []), ...more2]) Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
    return object;
  });
}

function queryOf(op: Operation): fc.Arbitrary<[string, string][]> {
  const params = op.query.map(({ name, schema }) =>
    fc.option(
      valueOf(schema).map((value): [string, string][] =>
        (Array.isArray(value) ? value : [value]).map((v) => [name, v === huge ? '1e309' : typeof v === 'object' ? JSON.stringify(v) : String(v)]),
      ),
      { freq: 2, nil: undefined },
    ),
  );
  const extra = fc.option(fc.tuple(fc.constantFrom('isAdmin', 'page[]', '__proto__', 'x'), fc.constantFrom(...evilStrings)), { freq: 6, nil: undefined });
  return fc.tuple(fc.tuple(...params), extra).map(([values, more]) => [...values.flatMap((v) => v ?? []), ...(more ? [more] : [])]);
}

function requestFor(index: number): fc.Arbitrary<FuzzRequest> {
  const op = operations[index];
  const pathValue = fc.oneof(
    { arbitrary: fc.constantFrom(...known), weight: 6 },
    { arbitrary: fc.constantFrom(...evilStrings.filter((s) => s !== '')), weight: 2 },
    { arbitrary: fc.string({ minLength: 1, maxLength: 30 }), weight: 1 },
  );
  const body: fc.Arbitrary<FuzzRequest['body']> = op.body
    ? fc.oneof(
        { arbitrary: objectOf(op.body).map((value) => ({ kind: 'json' as const, value })), weight: 8 },
        { arbitrary: valueOf({}).map((value) => ({ kind: 'json' as const, value })), weight: 1 },
        {
          arbitrary: fc.record({
            kind: fc.constant('raw' as const),
            text: fc.constantFrom('{', '{"a":1e309}', '[1,2', 'null', '"text"', '\u0000', '{"__proto__":{"x":1}}', ''),
            type: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'),
          }),
          weight: 1,
        },
      )
    : fc.oneof({ arbitrary: fc.constant({ kind: 'none' as const }), weight: 6 }, { arbitrary: fc.constant({ kind: 'json' as const, value: { x: 1 } }), weight: 1 });
  return fc.record({
    op: fc.constant(index),
    who: fc.constantFrom<Who>('admin', 'member', 'anonymous'),
    bearer: fc.boolean(),
    path: fc.array(pathValue, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
    query: queryOf(op),
    body,
  });
}

// A lone surrogate cannot be percent-encoded: it goes as U+FFFD, as a browser would send it.
const encode = (text: string) => encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));

function urlOf(request: FuzzRequest): string {
  const op = operations[request.op];
  let i = 0;
  const url = op.path.replace(/\{[^}]+\}/g, () => encode(request.path[i++]));
  const query = request.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  return query ? `${url}?${query}` : url;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

async function send(request: FuzzRequest): Promise<Answer> {
  const op = operations[request.op];
  const headers: Record<string, string> = { accept: 'application/json', origin };
  if (request.who !== 'anonymous') {
    if (request.bearer) headers.authorization = bearers[request.who]!;
    else headers.cookie = credentials[request.who]!;
  }
  let body: string | undefined;
  if (request.body.kind === 'json') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.body.value).replaceAll(JSON.stringify(huge), '1e309');
  } else if (request.body.kind === 'raw') {
    headers['content-type'] = request.body.type;
    body = request.body.text;
  }
  const res = await fetch(`${base}${urlOf(request)}`, { method: op.method, headers, ...(body !== undefined && op.method !== 'GET' && { body }) });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- seeding reads whatever the API answers
async function call(method: string, url: string, who: Who, payload?: unknown): Promise<Answer & { json: () => any }> {
  const headers: Record<string, string> = { accept: 'application/json', origin, 'content-type': 'application/json' };
  if (who !== 'anonymous') headers.authorization = bearers[who]!;
  const res = await fetch(`${base}${url}`, { method, headers, ...(payload !== undefined && { body: JSON.stringify(payload) }) });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: text, json: () => JSON.parse(text) };
}

async function signIn(email: string): Promise<{ cookie: string; bearer: string }> {
  const login = (query: string) =>
    fetch(`${base}/auth/login${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: goodPassword }) });
  const withCookie = await login('?useCookies=true');
  const cookie = /warden_session=[^;]+/.exec(withCookie.headers.get('set-cookie') ?? '')?.[0];
  const token = ((await (await login('')).json()) as { accessToken?: string }).accessToken;
  if (!cookie || !token) throw new Error(`signing in ${email} failed`);
  return { cookie, bearer: `Bearer ${token}` };
}

/** Starts the server process and answers once it listens. */
function startServer(): Promise<void> {
  server = spawn(path.join(__dirname, '../../node_modules/.bin/tsx'), [path.join(__dirname, 'fuzzServer.ts')], {
    env: { ...process.env, WARDEN_FUZZ_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stderr!.on('data', (chunk: Buffer) => (serverErrors = (serverErrors + chunk.toString('utf8')).slice(-4000)));
  server.on('exit', (code, signal) => deaths.push(`exit ${signal ?? code}: ${serverErrors.trim().slice(-1500)}`));
  return new Promise((resolve, reject) => {
    server.on('exit', () => reject(new Error(`the fuzz server did not start: ${serverErrors}`)));
    readline.createInterface({ input: server.stdout! }).once('line', (line) => {
      base = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
      resolve();
    });
  });
}

/** What is wrong with an answer, or null. */
function fault(res: Answer): string | null {
  if (res.status >= 500) return `answered ${res.status}: ${res.body.slice(0, 300)}`;
  if (res.status < 400) return null;
  if (!/^application\/problem\+json/.test(res.contentType)) return `${res.status} as ${res.contentType}`;
  let body: { type?: unknown; title?: unknown; status?: unknown };
  try {
    body = JSON.parse(res.body);
  } catch {
    return `${res.status} with a body that is not JSON`;
  }
  if (typeof body.type !== 'string' || typeof body.title !== 'string' || body.status !== res.status) return `${res.status} with a body that is not a problem: ${res.body.slice(0, 200)}`;
  return null;
}

beforeAll(async () => {
  await startServer();
  for (const who of ['admin', 'member'] as const) {
    const signed = await signIn(`${who}@example.com`);
    credentials[who] = signed.cookie;
    bearers[who] = signed.bearer;
  }
  const users = (await call('GET', '/admin/users?pageSize=10', 'admin')).json().items as { id: string; email: string }[];
  const member = users.find((u) => u.email === 'member@example.com')!;
  const other = users.find((u) => u.email === 'other@example.com')!;

  // A group with the member in it, an instance of each engine in it, and a backup.
  const group = (await call('POST', '/groups', 'admin', { name: 'fuzzers' })).json();
  await call('POST', `/groups/${group.id}/users`, 'admin', { userIds: [member.id] });
  known.push(group.id, other.id);
  for (const type of ['pg', 'etcd']) {
    const res = await call('POST', '/instances', 'admin', { name: `fuzz-${type}`, type, groupId: group.id });
    if (res.status !== 202) throw new Error(`seeding ${type}: ${res.status} ${res.body}`);
    known.push(res.json().id);
  }
  await settled();
  const backup = await call('POST', `/instances/${known[2]}/backups/database/backup`, 'admin', {});
  known.push(backup.json().id, '1', 'work_mem', 'postgres');

  const doc = (await call('GET', '/api/openapi.json', 'anonymous')).json() as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  };
  for (const [route, methods] of Object.entries(doc.paths)) {
    for (const [method, spec] of Object.entries(methods)) {
      // Signing out would end the sessions the rest of the run uses.
      if (route === '/auth/logout') continue;
      const parameters = spec.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path: route,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map(({ name, schema }) => ({ name, schema })),
        body: spec.requestBody?.content['application/json']?.schema ?? null,
      });
    }
  }
});

/** Waits (a while) until no instance has an operation running, so late failures are seen too. */
async function settled() {
  for (let i = 0; i < 100; i++) {
    const page = await call('GET', '/instances?pageSize=200', 'admin');
    if (page.status !== 200 || !(page.json().items as { operation: unknown }[]).some((x) => x.operation)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

afterAll(async () => {
  if (server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it(`answers ${runs} random requests to every route without a 5xx, a non-problem error or a crash`, async () => {
  expect(operations.length).toBeGreaterThan(60);
  const arbitrary = fc.nat({ max: operations.length - 1 }).chain(requestFor);
  // Every route at least a few times, then random ones.
  const requests = [
    ...operations.flatMap((_, i) => fc.sample(requestFor(i), { numRuns: 3, seed: seed + i })),
    ...fc.sample(arbitrary, { numRuns: Math.max(0, runs - operations.length * 3), seed }),
  ];
  const byStatus: Record<number, number> = {};
  const faults: string[] = [];
  let sent = 0;
  for (const request of requests) {
    if (deaths.length > 0) break;
    let res: Answer;
    try {
      res = await send(request);
    } catch (error) {
      // No answer at all: the process died (recorded by its exit) or dropped the connection.
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (deaths.length === 0 && faults.length < 30) faults.push(`${operations[request.op].method} ${urlOf(request).slice(0, 200)}: no answer (${String(error)})`);
      continue;
    } finally {
      sent++;
    }
    byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
    const wrong = fault(res);
    if (wrong && faults.length < 30) faults.push(`${operations[request.op].method} ${urlOf(request).slice(0, 200)} as ${request.who}: ${wrong}`);
  }
  // Operations started by the requests run in the background: wait for them before judging.
  if (deaths.length === 0) await settled();
  const health = deaths.length === 0 ? (await fetch(`${base}/healthz`)).status : 0;
  const fiveHundreds = Object.entries(byStatus).filter(([s]) => Number(s) >= 500).reduce((sum, [, n]) => sum + n, 0);
  const summary = `HTTP fuzz: ${sent} requests over ${operations.length} routes; answers by status ${JSON.stringify(byStatus)}; 5xx: ${fiveHundreds}; deaths: ${deaths.length}; seed ${seed}`;
  process.stdout.write(`${summary}\n`);

  expect(deaths).toEqual([]);
  expect(faults).toEqual([]);
  expect(sent).toBeGreaterThanOrEqual(runs);
  expect(health).toBe(200);
});
