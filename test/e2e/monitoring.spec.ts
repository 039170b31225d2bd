import { spawn } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { baseURL, change, json, statusOf } from './api';

// The monitoring charts of a real PostgreSQL instance in Chromium, against the real server sampling
// every second (globalSetup): a client connecting shows up in the connections chart over the hub,
// and uPlot really draws on its canvas.

test.setTimeout(180_000);

test('an instance page charts a psql connection as it happens', async ({ page }) => {
  await page.goto(`${baseURL()}/instances`);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/instances$/);

  const created = await page.request.post(`${baseURL()}/instances`, { headers: change(), data: { name: 'monitoring-e2e', type: 'pg' } });
  expect(created.status()).toBe(202);
  const { id, port } = (await created.json()) as { id: string; port: number };
  await expect.poll(() => statusOf(page.request, id), { timeout: 90_000 }).toBe('running');

  await page.goto(`${baseURL()}/instances/${id}`);
  const monitoring = page.getByRole('region', { name: 'Monitoring' });
  await expect(monitoring.getByText('Live', { exact: true })).toBeVisible();
  const connections = monitoring.getByRole('figure', { name: 'Connections' });
  await expect(connections).toBeVisible({ timeout: 30_000 });

  // The owner holds a connection open for a while, as an application would.
  const { user, database } = await (await page.request.get(`${baseURL()}/instances/${id}/connection`, { headers: json })).json();
  const { password } = await (await page.request.post(`${baseURL()}/instances/${id}/connection/secret`, { headers: change(), data: {} })).json();
  const psql = spawn('/usr/lib/postgresql/15/bin/psql', ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database, '-Atc', 'select pg_sleep(20)'], {
    env: { ...process.env, PGPASSWORD: password },
    stdio: 'ignore',
  });
  try {
    // The legend shows the newest sample, pushed over the hub: no reload.
    const total = connections.locator('dt', { hasText: 'Total' }).locator('xpath=following-sibling::dd[1]');
    await expect.poll(async () => Number(await total.textContent()), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    await expect(connections.getByText(/^Total: lowest \d+, highest [1-9]\d* in this range\.$/)).toBeAttached();
  } finally {
    psql.kill();
  }

  // uPlot drew the lines: the canvas has painted pixels.
  const painted = await connections.locator('canvas').first().evaluate((canvas: HTMLCanvasElement) => {
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) count += 1;
    return count;
  });
  expect(painted).toBeGreaterThan(0);

  // Another range is asked for and drawn too, and the picker works by keyboard.
  await monitoring.getByRole('radio', { name: '1 hour' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(monitoring.getByRole('radio', { name: '24 hours' })).toBeChecked();
  await expect(connections.locator('canvas').first()).toBeVisible();

  const stopped = await page.request.post(`${baseURL()}/instances/${id}/stop`, { headers: change(), data: {} });
  expect(stopped.status()).toBe(202);
  await expect.poll(() => statusOf(page.request, id), { timeout: 60_000 }).toBe('stopped');
});
