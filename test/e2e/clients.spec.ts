import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { writeManifest } from '../../server/releases/releaseCatalog';
import { zipArchive } from '../../server/releases/zip';
import { admin, regular } from './globalSetup';
import { signIn } from './signIn';
import { axeViolations } from './axe';

// The Clients screen in Chromium against the real server: a release in the server's releases folder
// is listed, and its download link answers the file with the checksum the list shows. The release
// is a small real zip written here: building real ones takes minutes (buildReleases.test.ts does).

const baseURL = () => process.env.WARDEN_E2E_URL!;
const version = '0.0.1-e2e';
const older = '0.0.0-e2e';

test.beforeAll(async () => {
  const dir = path.join(process.env.WARDEN_E2E_DATA_DIR!, 'releases');
  mkdirSync(dir, { recursive: true });
  const release = (name: string, releasedAt: string) => {
    const data = zipArchive([{ name: 'README.txt', data: Buffer.from(`Warden ${name}\r\n`) }]);
    const fileName = `warden-${name}-windows.zip`;
    writeFileSync(path.join(dir, fileName), data);
    const sha256 = createHash('sha256').update(data).digest('hex');
    return { version: name, platform: 'windows' as const, fileName, size: data.length, sha256, releasedAt, notes: 'End-to-end release' };
  };
  await writeManifest(dir, { releases: [release(older, '2030-01-01T00:00:00.000Z'), release(version, '2030-01-02T00:00:00.000Z')] });
});

test('a regular user sees the released version on /clients and downloads it with its checksum', async ({ page }) => {
  await page.goto(`${baseURL()}/clients`);
  await signIn(page, regular);
  await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible();

  const table = page.getByRole('table', { name: 'Windows client versions' });
  const row = table.getByRole('row').filter({ hasText: version });
  await expect(row).toBeVisible();
  await expect(row.getByText('latest')).toBeVisible();
  // The checksum is shown whole, to be compared by eye.
  const sha256 = (await row.locator('code').textContent())?.trim();
  expect(sha256).toMatch(/^[0-9a-f]{64}$/);

  const href = await row.getByRole('link', { name: 'Download' }).getAttribute('href');
  const res = await page.request.get(new URL(href!, baseURL()).href);
  expect(res.status()).toBe(200);
  const body = await res.body();
  expect(createHash('sha256').update(body).digest('hex')).toBe(sha256);
  expect(res.headers()['x-checksum-sha256']).toBe(sha256);
  expect(res.headers().etag).toBe(`"${sha256}"`);
  expect(res.headers()['content-disposition']).toBe(`attachment; filename="warden-${version}-windows.zip"`);
});

for (const theme of ['aura-light-green', 'aura-dark-green']) {
  test(`/clients with versions, and its remove dialog, have no serious or critical axe violation in ${theme}`, async ({ page }) => {
    await page.addInitScript((name) => window.localStorage.setItem('theme', name), theme);
    await page.goto(`${baseURL()}/clients`);
    await signIn(page, admin);
    const row = page.getByRole('table', { name: 'Windows client versions' }).getByRole('row').filter({ hasText: older });
    await expect(row).toBeVisible();
    await expect(page.locator('link#theme-link')).toHaveAttribute('href', new RegExp(`/${theme}\\.css$`));
    expect(await axeViolations(page)).toEqual([]);

    await row.getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Remove this version?' });
    await expect(dialog).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
  });
}
