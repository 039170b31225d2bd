import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { CrashableWarden } from './wardenProcess';

test.describe('a server restart under an open console', () => {
  let warden: CrashableWarden;
  /** A copy of the built console that a test started the server on, removed with the server. */
  let newerBuild: string | undefined;
  test.beforeAll(async () => {
    warden = await CrashableWarden.start('resilience', admin);
  });

  /** Signs in on the Instances screen, starts counting the page's reloads, then kills the server under it. */
  async function signedInThenServerKilled(page: Page): Promise<{ count: number }> {
    await page.goto(`${warden.url}/login`);
    await signIn(page, admin);
    await expect(page.getByRole('heading', { level: 1, name: 'Instances' })).toBeVisible();
    const loads = { count: 0 };
    page.on('load', () => (loads.count += 1));
    await warden.kill();
    return loads;
  }
  test.afterAll(async () => {
    await warden.stop();
    if (newerBuild) rmSync(newerBuild, { recursive: true, force: true });
  });

  test('a screen opened while the server is away waits for it, then shows by itself', async ({ page }) => {
    test.setTimeout(45_000);
    const loads = await signedInThenServerKilled(page);
    // The Clients screen's code has not been downloaded yet.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Warden is restarting — reconnecting…' })).toBeVisible();
    await expect(page.getByText(/Unexpected Application Error|Loading chunk/)).toHaveCount(0);

    await warden.startAgain();
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible({ timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe('/clients');
    expect(loads.count).toBe(0); // the same build: it went on without reloading
  });

  test('a server back with a newer build reloads the waiting page once, at its address, and the screen shows', async ({ page }) => {
    test.setTimeout(45_000);
    // The newer build: the built console copied elsewhere under another id (dist/ itself serves the other specs).
    newerBuild = mkdtempSync(path.join(tmpdir(), 'warden-e2e-newer-build-'));
    cpSync(path.resolve(__dirname, '../../dist'), newerBuild, { recursive: true });
    const index = path.join(newerBuild, 'index.html');
    const html = readFileSync(index, 'utf8');
    const running = /<meta name="?warden-build"? content="?(\w+)"?>/.exec(html)?.[1];
    expect(running).toBeTruthy();
    const newerId = `${running}newer`;
    writeFileSync(index, html.replace(running!, newerId));

    const loads = await signedInThenServerKilled(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Warden is restarting — reconnecting…' })).toBeVisible();

    await warden.startAgain({ WARDEN_STATIC_DIR: newerBuild });
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible({ timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe('/clients');
    await expect(page.locator('meta[name="warden-build"]')).toHaveAttribute('content', newerId);
    expect(loads.count).toBe(1);
    // Never a second one: the waiting screen asked every 2 s, and the reloaded page runs what the server serves.
    await page.waitForTimeout(3_000);
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible();
    expect(loads.count).toBe(1);
  });
});
