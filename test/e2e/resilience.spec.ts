import { expect, test } from '@playwright/test';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { CrashableWarden } from './wardenProcess';

test.describe('a server restart under an open console', () => {
  let warden: CrashableWarden;
  test.beforeAll(async () => {
    warden = await CrashableWarden.start('resilience', admin);
  });
  test.afterAll(() => warden.stop());

  test('a screen opened while the server is away waits for it, then shows by itself', async ({ page }) => {
    test.setTimeout(45_000);
    await page.goto(`${warden.url}/login`);
    await signIn(page, admin);
    await expect(page.getByRole('heading', { level: 1, name: 'Instances' })).toBeVisible();
    let reloads = 0;
    page.on('load', () => (reloads += 1));

    await warden.kill();
    // The Clients screen's code has not been downloaded yet.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Warden is restarting — reconnecting…' })).toBeVisible();
    await expect(page.getByText(/Unexpected Application Error|Loading chunk/)).toHaveCount(0);

    await warden.startAgain();
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible({ timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe('/clients');
    expect(reloads).toBe(0); // the same build: it went on without reloading
  });
});
