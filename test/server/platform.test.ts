import { addUser, expectProblem, goodPassword, setup, type Harness } from './helpers';

let h: Harness;
afterEach(() => h.close());

describe('platform endpoints', () => {
  beforeEach(async () => {
    h = await setup();
  });

  it('GET /healthz answers {status: ok} with nothing pending', async () => {
    const res = await h.app.inject({ url: '/healthz' });

    expect(res.statusCode).toBe(200);
    // An app that is not listening did its start-up work in ready(), so no phase of a listening start is recorded.
    expect(res.json()).toEqual({ status: 'ok', pending: [], failed: [], phases: {} });
  });

  it('compiles every route validator and response serializer (they are generated lazily, so a broken schema shows here)', async () => {
    const errors: unknown[] = [];
    const failed = await h.app.compileRouteSchemas((error) => errors.push(error));

    expect({ failed, errors }).toEqual({ failed: 0, errors: [] });
  });

  it('GET /api/openapi.json describes the API from the route schemas', async () => {
    const res = await h.app.inject({ url: '/api/openapi.json' });

    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/auth/login'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('email');
    expect(doc.paths['/auth/me'].get.security).toEqual([{ cookie: [] }, { bearer: [] }]);
    expect(doc.paths['/auth/login'].post.security).toBeUndefined();
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/static'))).toBe(false);
  });

  it('sets security headers on API answers', async () => {
    const res = await h.app.inject({ url: '/healthz' });

    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('unknown routes still answer problems, not Fastify defaults', async () => {
    expect(expectProblem(await h.app.inject({ method: 'DELETE', url: '/nope' }), 404).detail).toBeDefined();
  });
});

describe('request logging', () => {
  it('never writes passwords, cookies or tokens to the log', async () => {
    const lines: string[] = [];
    h = await setup({ logger: { level: 'trace', stream: { write: (line) => lines.push(line) } } });
    await addUser(h.db, 'dave@example.com');

    const cookieLogin = await h.app.inject({
      method: 'POST',
      url: '/auth/login?useCookies=true',
      payload: { email: 'dave@example.com', password: goodPassword },
    });
    const cookie = cookieLogin.cookies[0].value;
    const { accessToken } = (
      await h.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'dave@example.com', password: goodPassword } })
    ).json();
    await h.app.inject({ url: '/auth/me', headers: { cookie: `warden_session=${cookie}` } });
    await h.app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${accessToken}` } });
    await h.app.inject({ url: '/auth/confirmEmail?userId=1&code=SECRET-CODE-123' });

    const log = lines.join('');
    expect(log).toContain('/auth/me');
    expect(log).not.toContain(goodPassword);
    expect(log).not.toContain(cookie);
    expect(log).not.toContain(accessToken);
    expect(log).not.toContain('SECRET-CODE-123');
  });
});
