import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { resetPassword } from '../../scripts/admin';
import { migrateToLatest } from '../../server/db/migrations';
import { openDb } from '../../server/db/open';
import { addUser, cookieLogin, goodPassword, login, setup, type Harness } from './helpers';

// Recovering access without SMTP: `npx tsx scripts/admin.ts reset-password <email>` on the server.

let h: Harness;
beforeEach(async () => {
  h = await setup();
  await addUser(h.db, 'root@example.com', 'admin');
});
afterEach(() => h.close());

describe('resetPassword', () => {
  it('sets a new generated password that signs in, ends the old sessions, and audits it', async () => {
    const cookie = await cookieLogin(h, 'root@example.com');
    const password = await resetPassword(h.db, 'root@example.com');

    // Letters and digits only: pasted unquoted into `warden login` or a shell, it stays whole.
    expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect((await login(h, { email: 'root@example.com', password: goodPassword })).statusCode).toBe(401);
    expect((await login(h, { email: 'root@example.com', password }, '?useCookies=true')).statusCode).toBe(200);
    expect((await h.app.inject({ url: '/auth/me', headers: { cookie } })).statusCode).toBe(401);
    const audit = await h.db.selectFrom('audit_entries').select(['action', 'outcome']).where('action', '=', 'admin.cli.reset-password').execute();
    expect(audit).toEqual([{ action: 'admin.cli.reset-password', outcome: 'success' }]);
  });

  it('lifts a lockout', async () => {
    for (let i = 0; i < 5; i++) await login(h, { email: 'root@example.com', password: 'Wrong-password-1' });
    const password = await resetPassword(h.db, 'root@example.com');
    expect((await login(h, { email: 'root@example.com', password })).statusCode).toBe(200);
  });

  it('refuses an unknown e-mail', async () => {
    await expect(resetPassword(h.db, 'nobody@example.com')).rejects.toThrow('No account has the e-mail nobody@example.com.');
  });
});

describe('the command', () => {
  it('prints the new password for an account of the store in WARDEN_DATA_DIR, and fails on an unknown one', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-admin-'));
    try {
      const db = openDb({ dataDir });
      await migrateToLatest(db);
      await addUser(db, 'ops@example.com', 'admin');
      await db.destroy();
      const run = (email: string) =>
        promisify(execFile)('npx', ['tsx', 'scripts/admin.ts', 'reset-password', email], { env: { ...process.env, WARDEN_DATA_DIR: dataDir } });

      const { stdout } = await run('ops@example.com');
      expect(stdout).toMatch(/^New password for ops@example\.com: [A-Za-z0-9]{24}\n/);
      await expect(run('nobody@example.com')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('No account has the e-mail') });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
