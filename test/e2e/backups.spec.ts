import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { expect, test } from '@playwright/test';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { baseURL, change, statusOf } from './api';

// A database backup of a real PostgreSQL instance taken in the console, in Chromium, against the real
// server: the progress bar and the outcome arrive over the hub (no reload), and the file the browser
// downloads hashes to exactly the checksum the list shows.

test.setTimeout(180_000);

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

test('an admin takes a database backup, watches it run and succeed live, and downloads the bytes its checksum names', async ({ page }) => {
  await page.goto(`${baseURL()}/backups`);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/backups$/);

  // The instance itself is not under test here (instances.spec.ts creates one in the form): made over the API.
  const created = await page.request.post(`${baseURL()}/instances`, { headers: change(), data: { name: 'backups-e2e', type: 'pg' } });
  expect(created.status()).toBe(202);
  const { id, port } = (await created.json()) as { id: string; port: number };
  await expect.poll(() => statusOf(page.request, id), { timeout: 90_000 }).toBe('running');

  // Enough data (pgbench -s 20, ~300 MB) that the backup runs for seconds, not an instant the bar could slip through.
  const { password } = await (await page.request.post(`${baseURL()}/instances/${id}/connection/secret?role=superuser`, { headers: change(), data: {} })).json();
  execFileSync('/usr/lib/postgresql/15/bin/pgbench', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-i', '-q', '-s', '20', 'postgres'], {
    env: { ...process.env, PGPASSWORD: password },
    stdio: 'ignore',
  });

  await page.goto(`${baseURL()}/instances/${id}/backups/database`);
  await expect(page.getByRole('heading', { level: 1, name: 'Database backups' })).toBeVisible();
  const list = page.getByRole('region', { name: 'Database backups' });
  await expect(list.getByRole('heading', { name: 'No database backups yet.' })).toBeVisible();

  await page.getByRole('button', { name: 'Take backup' }).click();
  await expect(page.getByRole('progressbar', { name: 'Backup progress' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Take backup' })).toBeDisabled();

  // The row goes from running to succeeded through the hub; the bar goes with the outcome.
  const row = list.getByRole('row').filter({ has: page.getByRole('button', { name: 'Download' }) });
  await expect(row).toHaveCount(1);
  await expect(row.getByText('Succeeded', { exact: true })).toBeVisible({ timeout: 120_000 });
  await expect(page.getByRole('progressbar', { name: 'Backup progress' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Take backup' })).toBeEnabled();

  // The list shows the start of the SHA-256 and the whole of it on hover.
  const checksum = row.locator('code');
  const shown = await checksum.getAttribute('title');
  expect(shown).toMatch(/^[0-9a-f]{64}$/);
  await expect(checksum).toHaveText(`${shown!.slice(0, 12)}…`);

  const downloading = page.waitForEvent('download');
  await row.getByRole('button', { name: 'Download' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^backups-e2e-database-.+\.tar$/);
  const saved = await download.path();
  expect(await download.failure()).toBeNull();
  expect(await sha256Of(saved)).toBe(shown);

  const stopped = await page.request.post(`${baseURL()}/instances/${id}/stop`, { headers: change(), data: {} });
  expect(stopped.status()).toBe(202);
  await expect.poll(() => statusOf(page.request, id), { timeout: 60_000 }).toBe('stopped');
});
