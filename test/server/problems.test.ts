import { buildApp } from '../../server/app';
import { expectProblem, origin, setup, testConfig, type Harness } from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await setup();
});
afterEach(() => h.close());

const postLogin = (payload: string, contentType = 'application/json') =>
  h.app.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': contentType }, payload });

describe('problem details for bad requests', () => {
  it('answers 400 for malformed JSON', async () => {
    const body = expectProblem(await postLogin('{"email": "a@b.c",'), 400);
    expect(body.detail).toMatch(/not valid JSON/);
  });

  it('answers 400 for an empty JSON body', async () => {
    expectProblem(await postLogin(''), 400);
  });

  it('answers a validation problem naming an unknown field', async () => {
    const res = await postLogin(JSON.stringify({ email: 'a@b.c', password: 'x', isAdmin: true }));

    const body = expectProblem(res, 400);
    expect(body.title).toBe('One or more validation errors occurred.');
    expect(body.errors).toEqual({ isAdmin: ['is not a known field'] });
  });

  it('answers a validation problem for a wrong type and for a missing field', async () => {
    const wrongType = expectProblem(await postLogin(JSON.stringify({ email: { $ne: '' }, password: 'x' })), 400);
    expect(Object.keys(wrongType.errors ?? {})).toEqual(['email']);

    const missing = expectProblem(await postLogin(JSON.stringify({ email: 'a@b.c' })), 400);
    expect(missing.errors).toEqual({ password: ['is required'] });
  });

  it('answers a validation problem for a bad query value', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/auth/login?useCookies=maybe',
      payload: { email: 'a@b.c', password: 'x' },
    });

    expect(expectProblem(res, 400).errors).toHaveProperty('useCookies');
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await postLogin(JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(1_100_000) }));

    expectProblem(res, 413);
  });

  it('answers 415 for a body that is not JSON', async () => {
    expectProblem(await postLogin('email=a@b.c&password=x', 'application/x-www-form-urlencoded'), 415);
  });
});

describe('problem details for unknown addresses', () => {
  it('answers 404 for an unknown API route', async () => {
    const res = await h.app.inject({ url: '/api/nothing-here', headers: { accept: 'application/json' } });

    expect(expectProblem(res, 404).title).toBe('Not Found');
  });

  it('answers 405 with an Allow header for a path that exists for other methods', async () => {
    const get = await h.app.inject({ url: '/auth/login', headers: { accept: 'application/json' } });
    expect(expectProblem(get, 405).title).toBe('Method Not Allowed');
    expect(get.headers.allow).toBe('POST');

    const put = await h.app.inject({ method: 'PUT', url: '/healthz', headers: { origin } });
    expectProblem(put, 405);
    expect(put.headers.allow).toBe('GET, HEAD');
  });
});

describe('internal errors', () => {
  it('answers 500 without the message or stack, and logs the error for the operator', async () => {
    const lines: string[] = [];
    await h.close();
    h = await setup({ logger: { level: 'info', stream: { write: (line) => lines.push(line) } } });
    h.app.get('/test/boom', { config: { access: 'public' } }, async () => {
      throw new Error('disk /var/secret/path exploded');
    });

    const res = await h.app.inject({ url: '/test/boom' });

    const body = expectProblem(res, 500);
    expect(body.title).toBe('Internal Server Error');
    expect(body.detail).toBeUndefined();
    expect(res.body).not.toMatch(/secret|exploded|at /);
    expect(lines.join('')).toContain('disk /var/secret/path exploded');
  });

  it('names the request in the answer and the body, and the log line of the error carries the same id', async () => {
    const lines: string[] = [];
    await h.close();
    h = await setup({ logger: { level: 'info', stream: { write: (line) => lines.push(line) } } });
    h.app.get('/test/boom', { config: { access: 'public' } }, async () => {
      throw new Error('exploded');
    });

    const res = await h.app.inject({ url: '/test/boom' });

    const requestId = res.headers['x-request-id'];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json()).toMatchObject({ status: 500, requestId });
    const logged = lines.map((line) => JSON.parse(line) as { reqId?: string; msg?: string; err?: { message?: string } });
    expect(logged).toContainEqual(expect.objectContaining({ reqId: requestId, msg: 'Unhandled error', err: expect.objectContaining({ message: 'exploded' }) }));
    // Every answer names its request, a good one too; each its own.
    const healthy = await h.app.inject({ url: '/healthz' });
    expect(healthy.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(healthy.headers['x-request-id']).not.toBe(requestId);
    expect(expectProblem(await h.app.inject({ url: '/api/nothing-here', headers: { accept: 'application/json' } }), 404)).toHaveProperty('requestId');
  });

  it.each([
    ['SQLITE_FULL', "The server's disk is full"],
    ['ENOSPC', "The server's disk is full"],
    ['SQLITE_READONLY_DBMOVED', "The server's disk is read-only"],
    ['EROFS', "The server's disk is read-only"],
    ['SQLITE_IOERR_WRITE', "The server's disk failed"],
    ['EIO', "The server's disk failed"],
  ])('answers 503 for a disk error %s, saying what is wrong but no path, and logs it for the operator', async (code, title) => {
    const lines: string[] = [];
    await h.close();
    h = await setup({ logger: { level: 'info', stream: { write: (line) => lines.push(line) } } });
    h.app.get('/test/disk', { config: { access: 'public' } }, async () => {
      throw Object.assign(new Error(`${code}: /var/secret/warden.sqlite`), { code });
    });

    const body = expectProblem(await h.app.inject({ url: '/test/disk' }), 503);

    expect(body.title).toBe(title);
    expect(body.detail).toMatch(/operator must .+; then try again\.$/);
    expect(JSON.stringify(body)).not.toContain('secret');
    expect(lines.join('')).toContain('/var/secret/warden.sqlite');
  });
});

describe('rate limit', () => {
  it('answers 429 once one address signs in too often', async () => {
    const app = buildApp(testConfig({ loginRateLimit: 2 }), { db: h.db, logger: false });
    const attempt = () => app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'x@y.z', password: 'Wrong-pass-1' } });

    expect((await attempt()).statusCode).toBe(401);
    expect((await attempt()).statusCode).toBe(401);
    const limited = await attempt();

    expect(expectProblem(limited, 429).title).toBe('Too Many Requests');
    expect(limited.headers['retry-after']).toBeDefined();
    await app.close();
  });
});

describe('typed JSON bodies', () => {
  it('does not coerce body values, and reports every bad field at once', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 7, password: 42 } });
    const problem = expectProblem(res, 400);
    expect(Object.keys(problem.errors ?? {}).sort()).toEqual(['email', 'password']);
  });
});
