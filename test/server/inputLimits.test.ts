import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../server/app';
import { UrlSigner } from '../../server/backups/signedUrls';
import type { Db } from '../../server/db/schema';
import { addUser, goodPassword, origin, testConfig } from './helpers';
import { closeTestDb, openTestDb } from './testStore';

// Bad input never answers 5xx, and every error is a problem document (DESIGN §6, §11 "Inputs"),
// including the ones Node's HTTP parser answers before Fastify sees a request: checked against a
// listening server with real sockets.

let db: Db;
let app: ReturnType<typeof buildApp>;
let base: string;
let port: number;
let dataDir: string;
let admin: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-inputs-'));
  db = await openTestDb();
  await addUser(db, 'admin@example.com', 'admin');
  app = buildApp(testConfig({ dataDir, loginRateLimit: 3 }), { db, logger: false, supervise: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as net.AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: goodPassword }),
  });
  admin = `Bearer ${((await res.json()) as { accessToken: string }).accessToken}`;
});

afterAll(async () => {
  await app.close();
  await closeTestDb(db);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Writes the bytes as they are (no client fixes them up) and reads the answer to the end. */
function rawRequest(text: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = answer.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const contentType = /\r\ncontent-type: ([^\r]+)/i.exec(head)?.[1] ?? '';
      resolve({ status, contentType, body: rest.join('\r\n\r\n') });
    });
  });
}

async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${base}${url}`, init);
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() };
}

function expectProblemAnswer(answer: Answer, status: number) {
  expect(answer.status).toBe(status);
  expect(answer.contentType).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(answer.body) as { type: string; title: string; status: number; detail?: string; errors?: Record<string, string[]> };
  expect(problem).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status }));
  expect(problem.title).not.toBe('Error');
  return problem;
}

describe('paging values', () => {
  interface PagedRoute {
    url: string;
    /** The largest page and pageSize the route declares. */
    max: Record<'page' | 'pageSize', number | undefined>;
  }

  // Every paged list of the API, read from the OpenAPI document so a new one is covered too.
  async function pagedRoutes(): Promise<PagedRoute[]> {
    const doc = JSON.parse((await request('/api/openapi.json')).body) as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema: { maximum?: number } }[] }>>;
    };
    return Object.entries(doc.paths).flatMap(([route, ops]) => {
      const query = (ops.get?.parameters ?? []).filter((p) => p.in === 'query');
      if (!query.some((p) => p.name === 'page')) return [];
      const max = (name: string) => query.find((p) => p.name === name)?.schema.maximum;
      return [{ url: route.replace(/\{[^}]+\}/g, 'x'), max: { page: max('page'), pageSize: max('pageSize') } }];
    });
  }

  it('are found on every paged list, each with an upper bound for page and pageSize', async () => {
    const routes = await pagedRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const route of routes) {
      expect({ url: route.url, page: route.max.page }).toEqual({ url: route.url, page: 1_000_000 });
      expect({ url: route.url, bounded: (route.max.pageSize ?? Infinity) <= 1000 }).toEqual({ url: route.url, bounded: true });
    }
  });

  it('pageSize one over the bound answers 400 naming the field on every paged list', async () => {
    for (const route of await pagedRoutes()) {
      const answer = await request(`${route.url}?pageSize=${route.max.pageSize! + 1}`, { headers: { authorization: admin } });
      expect(Object.keys(expectProblemAnswer(answer, 400).errors ?? {})).toContain('pageSize');
    }
  });

  it.each([
    ['page', '1e309'],
    ['page', '1e20'],
    ['page', '1000001'],
    ['page', '-1'],
    ['page', '0'],
    ['page', '1.5'],
    ['page', 'NaN'],
    ['pageSize', '1e309'],
    ['pageSize', '0'],
    ['pageSize', '-5'],
    ['pageSize', '2.5'],
  ])('%s=%s answers 400 naming the field on every paged list', async (field, value) => {
    for (const { url } of await pagedRoutes()) {
      const answer = await request(`${url}?${field}=${value}`, { headers: { authorization: admin } });
      const problem = expectProblemAnswer(answer, 400);
      expect(Object.keys(problem.errors ?? {})).toContain(field);
    }
  });

  it('still answers the largest page allowed', async () => {
    const answer = await request('/admin/users?page=1000000&pageSize=200', { headers: { authorization: admin } });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(expect.objectContaining({ items: [], page: 1_000_000, pageSize: 200 }));
  });
});

describe('field names that are also object properties', () => {
  // Such a name once broke the mapping of validation errors and answered Fastify's own 500.
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('an unknown field named %s is named in a 400', async (name) => {
    const query = await request(`/admin/users?${name}=1`, { headers: { authorization: admin } });
    expect(expectProblemAnswer(query, 400).errors?.[name]).toEqual(['is not a known field']);

    const body = await request('/groups', {
      method: 'POST',
      headers: { authorization: admin, 'content-type': 'application/json' },
      body: `{"name":"g","${name}":{"x":1}}`,
    });
    const problem = expectProblemAnswer(body, 400);
    // The JSON parser itself refuses a `__proto__` key; any other is an unknown field.
    if (name !== '__proto__') expect(Object.keys(problem.errors ?? {})).toContain(name);
  });
});

describe('problems from the HTTP parser', () => {
  it('answers 414 for a request line over the limit', async () => {
    const answer = await rawRequest(`GET /instances?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(expectProblemAnswer(answer, 414).title).toBe('URI Too Long');
  });

  it('answers 431 for headers over the limit', async () => {
    const answer = await rawRequest(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect(expectProblemAnswer(answer, 431).title).toBe('Request Header Fields Too Large');
  });

  it('answers 400 for bytes that are not HTTP', async () => {
    expectProblemAnswer(await rawRequest('HELLO THERE\r\n\r\n'), 400);
  });

  it('answers 414 for a path parameter over the router limit', async () => {
    const answer = await request(`/instances/${'a'.repeat(500)}`, { headers: { authorization: admin } });
    expectProblemAnswer(answer, 414);
  });

  it('answers 400 for a path that is not valid percent-encoding', async () => {
    expectProblemAnswer(await rawRequest('GET /instances/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 400);
  });

  it('keeps serving after all of them', async () => {
    expect((await request('/healthz')).status).toBe(200);
  });
});

describe('problems from routes and plugins', () => {
  const json = { 'content-type': 'application/json' };

  it('answers 404 for an unknown route and 405 for a wrong method', async () => {
    expectProblemAnswer(await request('/api/nowhere', { headers: { accept: 'application/json' } }), 404);
    expectProblemAnswer(await request('/healthz', { method: 'DELETE', headers: { origin } }), 405);
  });

  it('answers 400 for bad JSON, 413 for a body too large, 415 for a body that is not JSON', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      request('/groups', { method: 'POST', headers: { authorization: admin, ...headers }, body });
    expectProblemAnswer(await post(json, '{"name":'), 400);
    expectProblemAnswer(await post(json, JSON.stringify({ name: 'x'.repeat(1_200_000) })), 413);
    expectProblemAnswer(await post({ 'content-type': 'application/x-www-form-urlencoded' }, 'name=a'), 415);
  });

  it('answers 410 for an expired download link', async () => {
    const backupId = '00000000-0000-4000-8000-000000000000';
    const { expires, signature } = await new UrlSigner(dataDir).sign(backupId, new Date(Date.now() - 60_000));
    const answer = await request(`/downloads/backups/${backupId}?expires=${expires}&signature=${signature}`);
    expect(expectProblemAnswer(answer, 410).title).toBe('Gone');
  });

  it('answers 403 for a download link with a bad signature and 404 for a missing static file', async () => {
    expectProblemAnswer(await request('/downloads/backups/x?expires=1&signature=y'), 403);
    expectProblemAnswer(await request('/static/..%2f..%2fetc%2fpasswd'), 403);
    expectProblemAnswer(await request('/favicon.ico'), 404);
  });

  it('answers 401 signed out and 429 once sign-ins are rate limited', async () => {
    expectProblemAnswer(await request('/instances'), 401);
    let last: Answer | undefined;
    for (let i = 0; i < 5; i++) {
      last = await request('/auth/login', { method: 'POST', headers: json, body: JSON.stringify({ email: 'x@y.z', password: 'Wrong-pass-1' }) });
    }
    expectProblemAnswer(last!, 429);
  });
});
