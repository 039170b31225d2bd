import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { freePort, startWarden, type WardenProcess } from './wardenProcess';

test.describe('a server restart under an open console', () => {
  let warden: WardenProcess;
  let dataDir: string;
  let port: number;
  const env = () => ({ WARDEN_DATA_DIR: dataDir, WARDEN_ADMIN_EMAIL: admin.email, WARDEN_ADMIN_PASSWORD: admin.password });

  test.beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'warden-e2e-resilience-'));
    port = await freePort();
    warden = await startWarden(env(), port);
  });
  test.afterAll(async () => {
    await warden.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a screen opened while the server is away waits for it, then shows by itself', async ({ page }) => {
    test.setTimeout(45_000);
    await page.goto(`${warden.url}/login`);
    await signIn(page, admin);
    await expect(page.getByRole('heading', { level: 1, name: 'Instances' })).toBeVisible();
    let reloads = 0;
    page.on('load', () => (reloads += 1));

    warden.child.kill('SIGKILL');
    await new Promise((resolve) => warden.child.once('exit', resolve));
    // The Clients screen's code has not been downloaded yet.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Warden is restarting — reconnecting…' })).toBeVisible();
    await expect(page.getByText(/Unexpected Application Error|Loading chunk/)).toHaveCount(0);

    warden = await startWarden(env(), port);
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible({ timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe('/clients');
    expect(reloads).toBe(0); // the same build: it went on without reloading
  });
});
