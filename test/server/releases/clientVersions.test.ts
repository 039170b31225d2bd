import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientVersion } from '../../../contracts/clientVersions';
import { writeManifest, type ReleaseRecord } from '../../../server/releases/releaseCatalog';
import { addUser, cookieLogin, expectProblem, origin, setup, type Harness } from '../helpers';

// The /client-versions API over a releases folder the test writes itself (small files standing in
// for real releases; building them is buildReleases.test.ts's job).

let h: Harness;
let admin: string;
let regular: string;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-client-versions-'));
const dir = path.join(dataDir, 'releases');

/** A release of random bytes, its file written beside the manifest. */
function release(version: string, platform: ClientVersion['platform'], releasedAt: string, size = 4096): ReleaseRecord & { data: Buffer } {
  const data = randomBytes(size);
  const fileName = `warden-${version}-${platform === 'windows' ? 'windows.zip' : 'container.tar'}`;
  fs.writeFileSync(path.join(dir, fileName), data);
  return { version, platform, fileName, size, sha256: createHash('sha256').update(data).digest('hex'), releasedAt, notes: `Notes of ${version}`, data };
}

let old: ReturnType<typeof release>;
let current: ReturnType<typeof release>;
let oldest: ReturnType<typeof release>;

beforeAll(async () => {
  fs.mkdirSync(dir, { recursive: true });
  oldest = release('0.0.9', 'windows', '2030-01-01T00:00:00.000Z');
  old = release('0.1.0-abc1234', 'windows', '2030-01-02T00:00:00.000Z');
  current = release('0.1.0-def5678', 'windows', '2030-01-03T00:00:00.000Z');
  const container = release('0.1.0-def5678', 'containers', '2030-01-03T00:00:00.000Z', 100);
  await writeManifest(dir, {
    releases: [current, oldest, old, container].map(({ data: _data, ...record }) => record),
  });
  h = await setup({ config: { dataDir } });
  await addUser(h.db, 'admin@example.com', 'admin');
  await addUser(h.db, 'user@example.com');
  admin = await cookieLogin(h, 'admin@example.com');
  regular = await cookieLogin(h, 'user@example.com');
});
afterAll(async () => {
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const get = (url: string, cookie = regular, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url, headers: { cookie, ...headers } });
const remove = (url: string, cookie = admin) => h.app.inject({ method: 'DELETE', url, headers: { cookie, origin } });

describe('listing', () => {
  it('answers each platform newest first with exactly one latest, to any signed-in user', async () => {
    const res = await get('/client-versions/windows');
    expect(res.statusCode).toBe(200);
    const list = res.json() as ClientVersion[];
    expect(list.map((v) => [v.version, v.latest])).toEqual([
      ['0.1.0-def5678', true],
      ['0.1.0-abc1234', false],
      ['0.0.9', false],
    ]);
    expect(list[0]).toEqual({
      version: '0.1.0-def5678',
      platform: 'windows',
      fileName: 'warden-0.1.0-def5678-windows.zip',
      size: 4096,
      sha256: current.sha256,
      releasedAt: '2030-01-03T00:00:00.000Z',
      notes: 'Notes of 0.1.0-def5678',
      latest: true,
    });
    const containers = (await get('/client-versions/containers')).json() as ClientVersion[];
    expect(containers.map((v) => [v.version, v.platform, v.latest])).toEqual([['0.1.0-def5678', 'containers', true]]);
  });

  it('refuses anonymous callers', async () => {
    expectProblem(await h.app.inject({ method: 'GET', url: '/client-versions/windows' }), 401);
  });

  it('answers the build status; building is off for a hand-made config', async () => {
    const res = await get('/client-versions/build');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ state: 'disabled', percent: 0, error: null });
  });
});

describe('downloads', () => {
  it('streams the whole file as an attachment with its checksum as ETag', async () => {
    const res = await get('/client-versions/download/0.1.0-abc1234?platform=windows');
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(old.data)).toBe(true);
    expect(res.headers).toMatchObject({
      'content-type': 'application/zip',
      'content-disposition': 'attachment; filename="warden-0.1.0-abc1234-windows.zip"',
      'content-length': '4096',
      etag: `"${old.sha256}"`,
      'x-checksum-sha256': old.sha256,
      'accept-ranges': 'bytes',
    });
  });

  it('serves a range with 206 and Content-Range, and a suffix range', async () => {
    const part = await get('/client-versions/download/0.1.0-def5678?platform=windows', regular, { range: 'bytes=100-1099' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-1099/4096');
    expect(part.headers['content-length']).toBe('1000');
    expect(part.rawPayload.equals(current.data.subarray(100, 1100))).toBe(true);

    const tail = await get('/client-versions/download/0.1.0-def5678?platform=windows', regular, { range: 'bytes=-10' });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(current.data.subarray(4086))).toBe(true);
  });

  it('answers 416 with the size for a range outside the file', async () => {
    const res = await get('/client-versions/download/0.1.0-def5678?platform=windows', regular, { range: 'bytes=5000-' });
    expectProblem(res, 416);
    expect(res.headers['content-range']).toBe('bytes */4096');
  });

  it('answers 404 problems for an unknown version or a version of another platform', async () => {
    expectProblem(await get('/client-versions/download/9.9.9?platform=windows'), 404);
    expectProblem(await get('/client-versions/download/0.0.9?platform=containers'), 404);
  });

  it('answers 400 for a bad platform or version, and a missing platform', async () => {
    expect(expectProblem(await get('/client-versions/download/0.0.9?platform=linux'), 400).errors).toBeDefined();
    expectProblem(await get('/client-versions/download/0.0.9'), 400);
    expectProblem(await get('/client-versions/download/..%2Fmanifest.json?platform=windows'), 400);
  });
});

describe('removing a version', () => {
  it('is for admins only', async () => {
    expectProblem(await remove('/client-versions/0.0.9?platform=windows', regular), 403);
  });

  it('refuses the latest with 409 and keeps it', async () => {
    expectProblem(await remove('/client-versions/0.1.0-def5678?platform=windows'), 409);
    expect((await get('/client-versions/download/0.1.0-def5678?platform=windows')).statusCode).toBe(200);
  });

  it('removes an old version and its file, audited; the other platform keeps its own', async () => {
    const res = await remove('/client-versions/0.0.9?platform=windows');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ version: '0.0.9', platform: 'windows' });
    expect(fs.existsSync(path.join(dir, oldest.fileName))).toBe(false);
    expectProblem(await get('/client-versions/download/0.0.9?platform=windows'), 404);
    expect(((await get('/client-versions/windows')).json() as ClientVersion[]).map((v) => v.version)).toEqual(['0.1.0-def5678', '0.1.0-abc1234']);
    expectProblem(await remove('/client-versions/0.0.9?platform=windows'), 404);

    const audit = (await get('/admin/audit?action=clients.delete', admin)).json() as { items: { action: string; target: string; outcome: string; detail: unknown }[] };
    expect(audit.items.map((e) => [e.target, e.outcome])).toEqual(
      expect.arrayContaining([
        ['0.0.9', 'success'],
        ['0.1.0-def5678', 'failure'],
      ]),
    );
  });
});

describe('a damaged manifest', () => {
  const manifest = path.join(dir, 'manifest.json');
  let kept: string;
  beforeAll(() => {
    kept = fs.readFileSync(manifest, 'utf8');
  });
  afterAll(() => fs.writeFileSync(manifest, kept));

  it.each([
    ['cut short', (text) => text.slice(0, 40)],
    ['not a manifest', () => JSON.stringify({ releases: [{ version: '../../etc' }] })],
  ] as [string, (kept: string) => string][])('answers 503 naming the way out when %s, and serves again once rebuilt', async (_case, damage) => {
    fs.writeFileSync(manifest, damage(kept));
    for (const url of ['/client-versions/windows', '/client-versions/download/0.1.0-def5678?platform=windows']) {
      const problem = expectProblem(await get(url), 503);
      expect(problem.title).toBe('Releases unavailable');
      expect(problem.detail).toBe('The list of client releases (releases/manifest.json in the data folder) is damaged: move it aside and build the releases again with `npm run release`.');
      expect(problem.detail).not.toContain(dataDir);
    }
    expectProblem(await remove('/client-versions/0.0.9?platform=windows'), 503);
    fs.writeFileSync(manifest, kept);
    expect((await get('/client-versions/windows')).statusCode).toBe(200);
  });
});
