import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { expectProblem, setup, type Harness } from './helpers';

let h: Harness;
let staticDir: string;
const indexHtml = '<!doctype html><html><body><div id="root"></div><script src="/static/app.3f2a1b.js"></script></body></html>';

beforeEach(async () => {
  staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-spa-'));
  fs.mkdirSync(path.join(staticDir, 'static'));
  fs.mkdirSync(path.join(staticDir, 'themes'));
  fs.writeFileSync(path.join(staticDir, 'index.html'), indexHtml);
  fs.writeFileSync(path.join(staticDir, 'static', 'app.3f2a1b.js'), 'console.log("warden")');
  fs.writeFileSync(path.join(staticDir, 'themes', 'aura-light-green.css'), ':root{--primary:green}');
  fs.writeFileSync(path.join(staticDir, 'favicon.ico'), 'ico');
  h = await setup({ config: { staticDir } });
});
afterEach(async () => {
  await h.close();
  fs.rmSync(staticDir, { recursive: true, force: true });
});

const navigate = (url: string) =>
  h.app.inject({ url, headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });

describe('SPA fallback', () => {
  it.each(['/', '/instances', '/instances/42/backups/database', '/admin/users', '/login?returnUrl=%2Fgroups'])(
    'answers index.html, not cached, to a navigation to %s',
    async (url) => {
      const res = await navigate(url);

      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toBe(indexHtml);
    },
  );

  it('answers the sign-in page alone (login.html) to a navigation to /login, and only there', async () => {
    const loginHtml = '<!doctype html><html><body><div id="root"><main class="login"></main></div></body></html>';
    fs.writeFileSync(path.join(staticDir, 'login.html'), loginHtml);

    for (const url of ['/login', '/login?returnUrl=%2Fgroups']) {
      const res = await navigate(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toBe(loginHtml);
    }
    expect((await navigate('/login/extra')).body).toBe(indexHtml);
    expect((await navigate('/register')).body).toBe(indexHtml);
  });

  it.each([['*/*'], [undefined]])('answers the console to GET / with Accept %s (curl, a first look)', async (accept) => {
    const res = await h.app.inject({ url: '/', headers: accept === undefined ? {} : { accept } });

    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(indexHtml);
  });

  it('answers JSON asked of / with a problem, and */* elsewhere reaches the API', async () => {
    expectProblem(await h.app.inject({ url: '/', headers: { accept: 'application/json' } }), 404);
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { accept: '*/*' } }), 401);
  });

  it('lets the browser fetch of a screen-like path reach the API', async () => {
    const res = await h.app.inject({ url: '/auth/me', headers: { accept: 'application/json' } });

    expectProblem(res, 401);
  });

  it('answers a 404 problem to a fetch of an unknown path', async () => {
    expectProblem(await h.app.inject({ url: '/nonexistent', headers: { accept: 'application/json' } }), 404);
  });

  it.each(['/api/nothing', '/healthz/x', '/client-versions/download/1.2.3', '/uihub'])(
    'never answers the SPA to a navigation under an API-only path (%s)',
    async (url) => {
      const res = await navigate(url);

      expect(res.headers['content-type']).not.toMatch(/^text\/html/);
    },
  );

  it('serves hashed assets with an immutable year-long cache, theme stylesheets revalidated', async () => {
    const script = await h.app.inject({ url: '/static/app.3f2a1b.js' });
    const theme = await h.app.inject({ url: '/themes/aura-light-green.css' });

    expect(script.statusCode).toBe(200);
    expect(script.body).toBe('console.log("warden")');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(theme.headers['content-type']).toMatch(/^text\/css/);
    // Theme files keep their names across builds, so a long cache would pin an old palette.
    expect(theme.headers['cache-control']).toBe('no-cache');
  });

  describe('precompressed assets', () => {
    const script = 'console.log("warden")';
    beforeEach(() => {
      fs.writeFileSync(path.join(staticDir, 'static', 'app.3f2a1b.js.br'), zlib.brotliCompressSync(script));
      fs.writeFileSync(path.join(staticDir, 'static', 'app.3f2a1b.js.gz'), zlib.gzipSync(script));
    });
    const fetchScript = (acceptEncoding?: string) =>
      h.app.inject({ url: '/static/app.3f2a1b.js', headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

    it('sends the brotli file to a browser taking br, with its type and the long cache', async () => {
      const res = await fetchScript('gzip, deflate, br, zstd');

      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(script);
    });

    it('sends the gzip file to a client taking only gzip', async () => {
      const res = await fetchScript('gzip');

      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(zlib.gunzipSync(res.rawPayload).toString()).toBe(script);
    });

    it('sends the plain file, still varying on Accept-Encoding, to a client taking neither', async () => {
      for (const res of [await fetchScript(), await fetchScript('identity')]) {
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.headers.vary).toMatch(/accept-encoding/i);
        expect(res.body).toBe(script);
      }
    });

    it('sends an asset the build left uncompressed as it is', async () => {
      fs.writeFileSync(path.join(staticDir, 'static', 'tiny.0a1b2c.js'), '1');

      const res = await h.app.inject({ url: '/static/tiny.0a1b2c.js', headers: { 'accept-encoding': 'br, gzip' } });

      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body).toBe('1');
    });
  });

  it('serves top-level files without a long cache, and 404 problems for missing assets', async () => {
    const favicon = await h.app.inject({ url: '/favicon.ico' });
    expect(favicon.statusCode).toBe(200);
    expect(favicon.headers['cache-control']).toBe('no-cache');

    expectProblem(await h.app.inject({ url: '/static/missing.js' }), 404);
    expectProblem(await navigate('/static/missing.js'), 404);
  });

  it('does not serve files outside the static folder', async () => {
    const res = await h.app.inject({ url: '/static/..%2f..%2f..%2fetc%2fpasswd' });

    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.body).not.toContain('root:');
  });

  it('sends the security headers with the page', async () => {
    const csp = (await navigate('/instances')).headers['content-security-policy'];

    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("connect-src 'self' ws: wss:");
    expect(csp).not.toContain('upgrade-insecure-requests');
    // The test page has no inline script: none may run.
    expect(csp).toContain("script-src 'self';");
  });

  it("lets the built pages' inline theme boot run by its hash, and no other inline script", async () => {
    const boot = "document.documentElement.classList.toggle('dark', false);";
    fs.writeFileSync(path.join(staticDir, 'login.html'), `<!doctype html><html><head><script data-themes="a b">${boot}</script><script src="/static/x.js"></script></head></html>`);
    const built = await setup({ config: { staticDir } });
    try {
      const csp = (await built.app.inject({ url: '/login', headers: { accept: 'text/html' } })).headers['content-security-policy'] as string;
      const hash = createHash('sha256').update(boot).digest('base64');
      expect(csp).toContain(`script-src 'self' 'sha256-${hash}';`);
    } finally {
      await built.close();
    }
  });
});

describe('SPA not built', () => {
  it('answers a navigation with a 503 problem telling to run npm run build', async () => {
    fs.rmSync(path.join(staticDir, 'index.html'));

    const body = expectProblem(await navigate('/instances'), 503);

    expect(body.detail).toContain('npm run build');
  });
});
