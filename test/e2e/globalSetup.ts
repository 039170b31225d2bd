import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, startWarden } from './wardenProcess';
import { createRegularUser } from './seed';
import { stopInstances } from './stopInstances';

export const admin = { email: 'admin@e2e.test', password: 'Adm1n!passw0rd' };
export const regular = { email: 'regular@e2e.test', password: 'Regul4r!passw0rd' };
/** Only the lockout test signs in as this one, so the lock it causes touches no other test. */
export const lockable = { email: 'lockable@e2e.test', password: 'L0ckable!passw0rd' };

/** One real server with its own store for the whole run; specs read its URL from WARDEN_E2E_URL. */
export default async function globalSetup() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'warden-e2e-'));
  // The engine user (postgres) must pass through the data dir to reach instances' folders.
  chmodSync(dataDir, 0o711);
  const port = await freePort();
  const warden = await startWarden(
    // Every spec signs in from 127.0.0.1, the admin many times a minute: the per-IP and per-account
    // sign-in limits are not what these tests are about (the server suite tests them).
    { WARDEN_DATA_DIR: dataDir, WARDEN_PROBE_INTERVAL_MS: '1000', WARDEN_LOG_POLL_MS: '500', WARDEN_METRICS_INTERVAL_MS: '1000', WARDEN_ADMIN_EMAIL: admin.email, WARDEN_ADMIN_PASSWORD: admin.password, WARDEN_LOGIN_RATE_LIMIT: '10000', WARDEN_ACCOUNT_RATE_LIMIT: '10000', WARDEN_INSTANCE_CREATE_RATE_LIMIT: '10000' },
    port,
  );
  // The first admin exists only on an empty store, so the regular user is added after start.
  await createRegularUser(dataDir, regular);
  await createRegularUser(dataDir, lockable);
  process.env.WARDEN_E2E_URL = warden.url;
  process.env.WARDEN_E2E_DATA_DIR = dataDir;
  return async () => {
    await warden.stop();
    await stopInstances(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  };
}
