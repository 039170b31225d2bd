import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { pickOption } from './pickOption';
import { baseURL, change, statusOf } from './api';

// The Logs screen against the real server, in Chromium: filtered to one real etcd instance and one
// level, an entry caused by an action on that instance arrives over the hub without a reload, and
// the export of the filtered view holds exactly what the filters say.

test.setTimeout(180_000);

test('an admin filters the logs to an instance and a level, sees a live entry arrive, and exports the view', async ({ page }) => {
  await page.goto(`${baseURL()}/logs`);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/logs$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Logs' })).toBeVisible();

  // The instance is not under test here: made over the API.
  const created = await page.request.post(`${baseURL()}/instances`, { headers: change(), data: { name: 'logs-e2e', type: 'etcd' } });
  expect(created.status()).toBe(202);
  const { id } = (await created.json()) as { id: string };
  await expect.poll(() => statusOf(page.request, id), { timeout: 90_000 }).toBe('running');

  // Filter in the screen: the choices land in the URL.
  await page.reload();
  await pickOption(page.getByRole('combobox', { name: 'Instance', exact: true }), 'logs-e2e');
  await expect(page).toHaveURL(new RegExp(`instanceId=${id}`));
  // The checkbox input is visually hidden; its label is what a person clicks.
  await page.locator('label').filter({ hasText: /^Info$/ }).click();
  await expect(page.getByRole('checkbox', { name: 'Info' })).toBeChecked();
  await expect(page).toHaveURL(/level=information/);
  const table = page.getByRole('table', { name: 'Log entries' });
  await expect(table.getByRole('row', { name: /create finished/ }).first()).toBeVisible();
  const rowsBefore = await table.getByRole('row', { name: /restart finished/ }).count();

  // An action on the instance: its outcome entry arrives live, with the page untouched.
  await page.mouse.move(0, 0);
  const restarted = await page.request.post(`${baseURL()}/instances/${id}/restart`, { headers: change(), data: {} });
  expect(restarted.status()).toBe(202);
  await expect(table.getByRole('row', { name: /restart finished/ })).toHaveCount(rowsBefore + 1, { timeout: 60_000 });
  await expect(page).toHaveURL(/level=information/);

  // Export the filtered view: every line parses and matches the filters.
  const downloading = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export NDJSON' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^warden-logs_logs-e2e_\d{8}T\d{6}Z-\d{8}T\d{6}Z\.ndjson$/);
  const lines = readFileSync((await download.path())!, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { instanceId: string; level: string; message: string });
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.every((entry) => entry.instanceId === id && entry.level === 'information')).toBe(true);
  expect(lines.some((entry) => entry.message.startsWith('restart finished'))).toBe(true);

  await page.request.delete(`${baseURL()}/instances/${id}?force=true`, { headers: change() });
});
