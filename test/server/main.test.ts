import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureFirstAdmin } from '../../server/auth/firstAdmin';
import { verifyPassword } from '../../server/auth/passwords';
import { migrateToLatest } from '../../server/db/migrations';
import { openDb } from '../../server/db/open';
import { countUsers, findByEmail } from '../../server/db/users';
import { startServer } from '../../server/main';
import { testConfig } from './helpers';
import { testStoreConfig } from './testStore';

describe('first admin', () => {
  it('is created on an empty store with a generated password, and only then', async () => {
    const db = openDb(':memory:');
    await migrateToLatest(db);

    const admin = await ensureFirstAdmin(db, { adminEmail: 'root@example.com', adminPassword: undefined });

    expect(admin).toMatchObject({ email: 'root@example.com', generated: true });
    expect(admin!.password).toMatch(/^[A-Za-z0-9]{24}$/);
    const stored = await findByEmail(db, 'root@example.com');
    expect(stored).toMatchObject({ role: 'admin', emailConfirmed: true });
    expect(await verifyPassword(admin!.password, stored!.passwordHash)).toBe(true);

    expect(await ensureFirstAdmin(db, { adminEmail: 'other@example.com', adminPassword: undefined })).toBeNull();
    expect(await countUsers(db)).toBe(1);
    await db.destroy();
  });

  it('uses WARDEN_ADMIN_PASSWORD when given', async () => {
    const db = openDb(':memory:');
    await migrateToLatest(db);

    const admin = await ensureFirstAdmin(db, { adminEmail: 'root@example.com', adminPassword: 'Given-pass-1' });

    expect(admin).toEqual({ email: 'root@example.com', password: 'Given-pass-1', generated: false });
    await db.destroy();
  });
});

describe('startServer', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-main-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('prints the first admin once in a box, listens on the real port, and serves sign-in', async () => {
    const config = testConfig({ dataDir, port: 0, ...(await testStoreConfig()) });
    const printed: string[] = [];

    const server = await startServer(config, { print: (text) => printed.push(text) });
    try {
      expect(printed).toHaveLength(2);
      // The box comes last: nothing printed at start-up pushes it out of sight.
      const [listening, box] = printed;
      expect(box).toMatch(/^\+-+\+\n/);
      expect(box).toContain('e-mail:   admin@warden.local');
      const password = /password: (\S+)/.exec(box)?.[1] ?? '';
      expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
      expect(listening).toMatch(/^Warden listening on http:\/\/127\.0\.0\.1:\d+$/);
      expect(listening).not.toMatch(/:0$/);
      expect(listening.endsWith(server.url)).toBe(true);

      const login = await fetch(`${server.url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@warden.local', password }),
      });
      expect(login.status).toBe(200);
      const me = await fetch(`${server.url}/auth/me`, { headers: { authorization: `Bearer ${(await login.json()).accessToken}` } });
      expect((await me.json()).role).toBe('admin');
    } finally {
      await server.close();
    }

    const again: string[] = [];
    const restarted = await startServer(config, { print: (text) => again.push(text) });
    await restarted.close();
    expect(again).toEqual([expect.stringMatching(/^Warden listening on /)]);
  });

  it('listens before adopting instances and the like, and /healthz names the phases of the start', async () => {
    const config = testConfig({ dataDir, port: 0, ...(await testStoreConfig()) });
    const server = await startServer(config, { print: () => undefined });
    try {
      const first = await fetch(`${server.url}/healthz`);
      expect(first.status).toBe(200);
      expect(['starting', 'ok']).toContain((await first.json()).status);

      await server.startup.settled();
      const health = await (await fetch(`${server.url}/healthz`)).json();
      expect(health).toMatchObject({ status: 'ok', pending: [], failed: [] });
      const { processUp, storeOpen, routesReady, listening, backgroundReady } = health.phases;
      expect([processUp, storeOpen, routesReady, listening, backgroundReady].every((ms) => typeof ms === 'number')).toBe(true);
      expect(processUp <= storeOpen && storeOpen <= routesReady && routesReady <= listening && listening <= backgroundReady).toBe(true);
    } finally {
      await server.close();
    }
  });
});
