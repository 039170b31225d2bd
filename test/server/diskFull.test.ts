import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../../server/app';
import { migrateToLatest } from '../../server/db/migrations';
import { openDb } from '../../server/db/open';
import type { Db } from '../../server/db/schema';
import { toProblem } from '../../server/http/problems';
import { addUser, goodPassword, origin, testConfig } from './helpers';

// A real server whose data folder is a small tmpfs the test fills and frees again; mounting needs root.
const describeAsRoot = process.getuid?.() === 0 ? describe : describe.skip;

describeAsRoot('a server whose disk is full', () => {
  let mount: string;
  let dataDir: string;
  let filler: string;
  let db: Db;
  let app: ReturnType<typeof buildApp>;
  let baseUrl: string;
  let admin: string;
  const logged: string[] = [];

  beforeAll(async () => {
    mount = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mount]);
    dataDir = path.join(mount, 'data');
    filler = path.join(mount, 'filler');
    db = openDb({ dataDir });
    await migrateToLatest(db);
    await addUser(db, 'root@example.com', 'admin');
    app = buildApp(testConfig({ dataDir }), {
      db,
      supervise: false,
      logger: { level: 'error', stream: { write: (line) => logged.push(line) } },
    });
    baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const res = await login();
    admin = res.headers.get('set-cookie')!.split(';')[0];
  });

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
    if (mount) {
      execFileSync('umount', ['--lazy', mount]);
      fs.rmSync(mount, { recursive: true, force: true });
    }
  });

  const login = () =>
    fetch(`${baseUrl}/auth/login?useCookies=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'root@example.com', password: goodPassword }),
    });
  const createGroup = (name: string) =>
    fetch(`${baseUrl}/groups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: admin, origin },
      body: JSON.stringify({ name }),
    });
  const deleteGroup = (id: string) =>
    fetch(`${baseUrl}/groups/${id}`, { method: 'DELETE', headers: { cookie: admin, origin } });
  const groupNames = async () => {
    const res = await fetch(`${baseUrl}/groups?page=1&pageSize=25`, { headers: { cookie: admin } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { items: { name: string }[] }).items.map((group) => group.name);
  };

  /** Writes zeros until the file system refuses another page. */
  function fillDisk() {
    const fd = fs.openSync(filler, 'w');
    try {
      for (const chunk of [Buffer.alloc(1 << 20), Buffer.alloc(4096)]) {
        for (;;) {
          try {
            fs.writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
            throw error;
          }
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  async function expectDiskFull(res: Response) {
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      type: 'https://tools.ietf.org/html/rfc9110#section-15.6.4',
      title: "The server's disk is full",
      status: 503,
      detail: 'The server has no room left to write. An operator must free space on its disk; then try again.',
      requestId: expect.any(String),
    });
    expect(text).not.toContain(mount);
  }

  it('answers 503 saying so on sign-in and a create, still serves reads, and works again once space is freed', async () => {
    const before = await createGroup('before');
    expect(before.status).toBe(201);
    // An emptied write-ahead log: the next write must claim new space rather than reuse the log's.
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
    fillDisk();

    await expectDiskFull(await login());
    await expectDiskFull(await createGroup('during'));
    // A change made in a transaction is refused whole.
    await expectDiskFull(await deleteGroup(((await before.json()) as { id: string }).id));
    expect(await groupNames()).toEqual(['before']);
    // The operator's log says what the client is not told.
    expect(logged.join('')).toContain('database or disk is full');

    fs.rmSync(filler);
    expect((await login()).status).toBe(200);
    expect((await createGroup('after')).status).toBe(201);
    expect(await groupNames()).toEqual(['after', 'before']);

    // Every change that was answered, and none that was refused, is in the store a fresh connection reads.
    const reopened = openDb({ dataDir });
    try {
      const stored = await reopened.selectFrom('groups').select('name').orderBy('name').execute();
      expect(stored.map((group) => group.name)).toEqual(['after', 'before']);
    } finally {
      await reopened.destroy();
    }
  });

  it('answers the same for a file the disk refuses, even wrapped in another error, and names no path', () => {
    fillDisk();
    try {
      let refused: unknown;
      try {
        fs.writeFileSync(path.join(dataDir, 'backup.partial'), Buffer.alloc(64 * 1024));
      } catch (error) {
        refused = error;
      }
      expect((refused as NodeJS.ErrnoException).code).toBe('ENOSPC');
      for (const error of [refused as Error, new Error('The backup could not be stored.', { cause: refused })]) {
        const problem = toProblem(error);
        expect(problem?.toJSON()).toMatchObject({ status: 503, title: "The server's disk is full" });
        expect(JSON.stringify(problem?.toJSON())).not.toContain(mount);
      }
    } finally {
      fs.rmSync(filler);
      fs.rmSync(path.join(dataDir, 'backup.partial'), { force: true });
    }
  });
});
