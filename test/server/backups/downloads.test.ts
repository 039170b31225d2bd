import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Backup, DownloadUrl } from '../../../contracts/backups';
import type { PageOf } from '../../../contracts/page';
import { parseRange, UrlSigner } from '../../../server/backups/signedUrls';
import { updateBackup } from '../../../server/db/backups';
import { insertInstance } from '../../../server/db/instances';
import { InProcessBus } from '../../../server/hub/bus';
import { addUser, cookieLogin, expectProblem, origin, setup, type Harness } from '../helpers';
import { inertEngine } from '../instances/inertEngine';

// Signed download links through the real app: the link alone is the credential (no cookie), it is
// bound to one backup and dies after five minutes; ranges are served from a file checked whole.

let h: Harness;
let admin: string;
const engines = { pg: inertEngine('pg'), etcd: inertEngine('etcd') };
const bus = new InProcessBus();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-downloads-'));
fs.chmodSync(dataDir, 0o711);

let counter = 0;
/** A running instance of the inert engine. */
async function runningInstance(): Promise<string> {
  const id = randomUUID();
  const port = 21000 + ++counter;
  await insertInstance(h.db, {
    id, name: `shop-${counter}`, type: 'pg', status: 'running', desired_state: 'running', status_reason: null,
    health_level: 'good', health_checks: '[]', group_id: null, engine_version: '15.0', port, peer_port: null,
    description: '', created_at: h.clock.now().toISOString(), created_by: null, last_backup_at: null,
    operation_kind: null, operation_started_at: null,
  });
  const dir = path.join(dataDir, 'instances', id);
  fs.mkdirSync(dir, { recursive: true });
  await engines.pg.start({ id, dir, port });
  return id;
}

const call = (method: 'GET' | 'POST' | 'DELETE', url: string) =>
  h.app.inject({ method, url, headers: { origin, cookie: admin, accept: 'application/json' }, ...(method === 'POST' && { payload: {} }) });

/** Takes a database backup through the API and answers it as listed once finished. */
async function takeBackup(instanceId: string): Promise<Backup> {
  const res = await call('POST', `/instances/${instanceId}/backups/database/backup`);
  expect(res.statusCode).toBe(202);
  await h.app.backups.idle();
  const page = (await call('GET', `/instances/${instanceId}/backups/database`)).json() as PageOf<Backup>;
  const backup = page.items.find((b) => b.id === res.json().id)!;
  expect(backup.status).toBe('succeeded');
  return backup;
}

async function linkOf(backup: Backup): Promise<DownloadUrl> {
  const res = await call('GET', `/instances/${backup.instanceId}/backups/url/${backup.id}`);
  expect(res.statusCode).toBe(200);
  return res.json() as DownloadUrl;
}

/** The link's path and query, fetched like a browser tab would: no cookie, no origin. */
function fetchLink(url: string, headers: Record<string, string> = {}) {
  const { pathname, search } = new URL(url);
  return h.app.inject({ method: 'GET', url: `${pathname}${search}`, headers });
}

const storedFile = (backup: Backup) => path.join(dataDir, 'backups', backup.instanceId, `${backup.id}.tar`);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function waitFor(predicate: () => Promise<boolean>, timeoutMs = 3000) {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let instanceId: string;
let backup: Backup;
let link: DownloadUrl;

beforeAll(async () => {
  h = await setup({ config: { dataDir }, engines, supervise: false, bus });
  await addUser(h.db, 'admin@example.com', 'admin');
  admin = await cookieLogin(h, 'admin@example.com');
  instanceId = await runningInstance();
  backup = await takeBackup(instanceId);
  link = await linkOf(backup);
});
afterAll(async () => {
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('GET /instances/{id}/backups/url/{backupId}', () => {
  it('answers a link to /downloads/backups on the public URL that expires in five minutes', () => {
    const url = new URL(link.url);
    expect(`${url.protocol}//${url.host}`).toBe(origin);
    expect(url.pathname).toBe(`/downloads/backups/${backup.id}`);
    expect(url.searchParams.get('signature')).toMatch(/^[\w-]{43}$/);
    expect(link.expiresAt).toBe(new Date(h.clock.now().getTime() + 5 * 60_000).toISOString());
    expect(Number(url.searchParams.get('expires')) * 1000).toBe(Date.parse(link.expiresAt));
  });

  it('answers 404 for another instance’s backup and for an unknown one', async () => {
    const other = await runningInstance();
    expectProblem(await call('GET', `/instances/${other}/backups/url/${backup.id}`), 404);
    expectProblem(await call('GET', `/instances/${instanceId}/backups/url/${randomUUID()}`), 404);
  });
});

describe('GET /downloads/backups/{backupId}', () => {
  it('serves the whole archive without a session, with its checksum and a .tar attachment name', async () => {
    const res = await fetchLink(link.url);
    expect(res.statusCode).toBe(200);
    const file = fs.readFileSync(storedFile(backup));
    expect(res.headers['content-type']).toBe('application/x-tar');
    expect(res.headers['content-length']).toBe(String(file.length));
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="shop-1-database-[\dT-]+Z\.tar"$/);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['x-checksum-sha256']).toBe(backup.sha256);
    expect(sha256(res.rawPayload)).toBe(backup.sha256);
    expect(res.rawPayload.length).toBe(backup.sizeBytes);
  });

  it('serves a range as 206 with its content-range', async () => {
    const file = fs.readFileSync(storedFile(backup));
    const res = await fetchLink(link.url, { range: 'bytes=0-9' });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-9/${file.length}`);
    expect(res.headers['content-length']).toBe('10');
    expect(res.rawPayload.equals(file.subarray(0, 10))).toBe(true);
    expect(res.headers['x-checksum-sha256']).toBe(backup.sha256);
  });

  it('serves a suffix range: the last five bytes', async () => {
    const file = fs.readFileSync(storedFile(backup));
    const res = await fetchLink(link.url, { range: 'bytes=-5' });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${file.length - 5}-${file.length - 1}/${file.length}`);
    expect(res.rawPayload.equals(file.subarray(-5))).toBe(true);
  });

  it('answers 416 with the size for a range outside the file', async () => {
    const size = fs.statSync(storedFile(backup)).size;
    const res = await fetchLink(link.url, { range: `bytes=${size}-` });
    expectProblem(res, 416);
    expect(res.headers['content-range']).toBe(`bytes */${size}`);
  });

  it('answers 403 to a changed signature, expiry or backup id', async () => {
    const url = new URL(link.url);
    const signature = url.searchParams.get('signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    expectProblem(await fetchLink(tampered.toString()), 403);

    const extended = new URL(url);
    extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expectProblem(await fetchLink(extended.toString()), 403);

    const second = await takeBackup(instanceId);
    const moved = new URL(url);
    moved.pathname = `/downloads/backups/${second.id}`;
    expectProblem(await fetchLink(moved.toString()), 403);
    // The second backup's own link works.
    expect((await fetchLink((await linkOf(second)).url)).statusCode).toBe(200);
  });

  it('answers 404 once the backup was deleted', async () => {
    const doomed = await takeBackup(instanceId);
    const doomedLink = await linkOf(doomed);
    expect((await call('DELETE', `/instances/${instanceId}/backups/database/${doomed.id}?force=true`)).statusCode).toBe(200);
    expectProblem(await fetchLink(doomedLink.url), 404);
  });

  it('refuses a range of a file whose bytes changed and marks the backup corrupt', async () => {
    const victim = await takeBackup(instanceId);
    const victimLink = await linkOf(victim);
    const file = fs.readFileSync(storedFile(victim));
    file[100] ^= 0xff;
    fs.writeFileSync(storedFile(victim), file);
    expectProblem(await fetchLink(victimLink.url, { range: 'bytes=0-9' }), 409);
    const listed = (await call('GET', `/instances/${instanceId}/backups/database?status=corrupt`)).json() as PageOf<Backup>;
    expect(listed.items.map((b) => b.id)).toEqual([victim.id]);
    expect(listed.items[0].verification).toMatchObject({ ok: false, detail: expect.stringContaining('Checksum mismatch') });
  });

  it('cuts off a whole download of a file whose bytes changed and marks the backup corrupt', async () => {
    const victim = await takeBackup(instanceId);
    const victimLink = await linkOf(victim);
    // A stored file of several read chunks, recorded with its checksum, then one byte flipped.
    const data = randomBytes(300_000);
    await updateBackup(h.db, victim.id, { sha256: sha256(data), size_bytes: data.length });
    data[250_000] ^= 0xff;
    fs.writeFileSync(storedFile(victim), data);
    await expect(fetchLink(victimLink.url)).rejects.toThrow('response destroyed before completion');
    await waitFor(async () => (await call('GET', `/instances/${instanceId}/backups/database?status=corrupt`)).json().items.some((b: Backup) => b.id === victim.id));
  });

  it('refuses a whole download of a small file whose bytes changed with a problem, not a saved error page', async () => {
    const victim = await takeBackup(instanceId);
    const victimLink = await linkOf(victim);
    const file = fs.readFileSync(storedFile(victim));
    expect(file.length).toBeLessThanOrEqual(64 * 1024);
    file[100] ^= 0xff;
    fs.writeFileSync(storedFile(victim), file);
    const res = await fetchLink(victimLink.url);
    expectProblem(res, 409);
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('keeps the claim of a backup started the moment the previous one completed (one backup per instance)', async () => {
    const own = await runningInstance();
    const service = h.app.backups;
    let second: Promise<{ backup: Backup }> | null = null;
    const stop = bus.subscribe((event) => {
      if (event.event === 'BackupCompleted' && !second) second = service.take(own, 'database', 'manual', null);
    });
    const first = await service.take(own, 'database', 'manual', null);
    await first.done;
    stop();
    expect(second).not.toBeNull();
    const running = (await second!).backup;
    // The first backup's end must not have released the second one's claim.
    if ((await service.find(running.id))!.status === 'running') {
      expect(service.busy(own)).toBe(true);
      expectProblem(await call('POST', `/instances/${own}/backups/database/backup`), 409);
    }
    await service.idle();
    expect((await service.find(running.id))!.status).toBe('succeeded');
  });

  // Last: it moves the clock.
  it('answers 410 once the link is older than five minutes', async () => {
    const fresh = await linkOf(backup);
    h.clock.advance(5 * 60_000);
    expect((await fetchLink(fresh.url, { range: 'bytes=0-0' })).statusCode).toBe(206);
    h.clock.advance(1_000);
    const res = expectProblem(await fetchLink(fresh.url), 410);
    expect(res.detail).toMatch(/expired/);
  });
});

describe('UrlSigner', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-signer-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  const expiresAt = new Date('2030-01-02T03:09:05.750Z');
  const before = new Date('2030-01-02T03:04:05.000Z');

  it('signs to the second and checks its own links until they expire', async () => {
    const signer = new UrlSigner(freshDir());
    const { expires, signature } = await signer.sign('backup-1', expiresAt);
    expect(expires).toBe(Math.floor(expiresAt.getTime() / 1000));
    expect(await signer.check('backup-1', expires, signature, before)).toBe('ok');
    expect(await signer.check('backup-1', expires, signature, new Date(expires * 1000))).toBe('ok');
    expect(await signer.check('backup-1', expires, signature, new Date(expires * 1000 + 1))).toBe('expired');
  });

  it('calls a link for another backup, another expiry or a changed signature invalid, without throwing', async () => {
    const signer = new UrlSigner(freshDir());
    const { expires, signature } = await signer.sign('backup-1', expiresAt);
    expect(await signer.check('backup-2', expires, signature, before)).toBe('invalid');
    expect(await signer.check('backup-1', expires + 1, signature, before)).toBe('invalid');
    expect(await signer.check('backup-1', expires, signature.slice(0, -1), before)).toBe('invalid');
    expect(await signer.check('backup-1', expires, '', before)).toBe('invalid');
    // An expired link with a wrong signature is invalid, not expired: the expiry is not trusted unsigned.
    expect(await signer.check('backup-2', expires, signature, new Date(expires * 1000 + 1))).toBe('invalid');
  });

  it('keeps its key in the data dir, so links survive a restart but not another server', async () => {
    const dir = freshDir();
    const { expires, signature } = await new UrlSigner(dir).sign('backup-1', expiresAt);
    const keyFile = path.join(dir, 'secrets', 'download-signing.key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(await new UrlSigner(dir).check('backup-1', expires, signature, before)).toBe('ok');
    expect(await new UrlSigner(freshDir()).check('backup-1', expires, signature, before)).toBe('invalid');
  });

  it('refuses to start with a key file that holds too short a key', () => {
    const dir = freshDir();
    fs.mkdirSync(path.join(dir, 'secrets'));
    fs.writeFileSync(path.join(dir, 'secrets', 'download-signing.key'), 'c2hvcnQ\n');
    expect(() => new UrlSigner(dir)).toThrow('holds no usable signing key');
  });
});

describe('parseRange', () => {
  it.each([
    [undefined, null],
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=5-', { start: 5, end: 99 }],
    ['bytes=-5', { start: 95, end: 99 }],
    ['bytes=-500', { start: 0, end: 99 }],
    ['bytes=90-1000', { start: 90, end: 99 }],
    ['bytes=99-99', { start: 99, end: 99 }],
    ['bytes=100-', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    ['bytes=9-3', 'unsatisfiable'],
    // Several ranges or another unit: the whole file.
    ['bytes=0-1,5-6', null],
    ['items=0-9', null],
    ['bytes=-', null],
  ])('reads %j of a 100-byte file as %j', (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });
});
