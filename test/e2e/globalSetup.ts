import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, startWarden } from './wardenProcess';
import { createRegularUser } from './seed';

export const admin = { email: 'admin@e2e.test', password: 'Adm1n!passw0rd' };
export const regular = { email: 'regular@e2e.test', password: 'Regul4r!passw0rd' };

/** One real server with its own store for the whole run; specs read its URL from WARDEN_E2E_URL. */
export default async function globalSetup() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'warden-e2e-'));
  const port = await freePort();
  const warden = await startWarden(
    { WARDEN_DATA_DIR: dataDir, WARDEN_ADMIN_EMAIL: admin.email, WARDEN_ADMIN_PASSWORD: admin.password },
    port,
  );
  // The first admin exists only on an empty store, so the regular user is added after start.
  await createRegularUser(dataDir, regular);
  process.env.WARDEN_E2E_URL = warden.url;
  process.env.WARDEN_E2E_DATA_DIR = dataDir;
  return async () => {
    await warden.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
