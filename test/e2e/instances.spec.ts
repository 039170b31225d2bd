import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { pickOption } from './pickOption';

// A real PostgreSQL instance created, configured and stopped through the console, in Chromium,
// against the real server: no reload anywhere, every status change arrives over the hub.

const baseURL = () => process.env.WARDEN_E2E_URL!;

test.setTimeout(180_000);

test('an admin creates a pg instance, watches it reach running, changes a parameter and stops it', async ({ page }) => {
  await page.goto(`${baseURL()}/instances/create`);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/instances\/create$/);

  const name = page.getByLabel('Name');
  await name.fill('Bad');
  await expect(page.getByText('The name must start with a lower-case letter.')).toBeVisible();
  await name.fill('orders-e2e');
  await expect(page.getByText('This name is available')).toBeVisible();
  await pickOption(page.getByRole('combobox', { name: 'Type' }), 'PostgreSQL');
  await page.getByLabel('Description').fill('Created by the browser test');
  await page.getByRole('button', { name: 'Create' }).click();

  await expect(page).toHaveURL(/\/instances\/[0-9a-f-]{36}$/);
  const id = page.url().split('/').pop()!;
  await expect(page.getByRole('heading', { level: 1, name: 'orders-e2e' })).toBeVisible();
  // initdb and the first start take a few seconds; the badge changes without a reload.
  const state = page.getByRole('group', { name: 'State' });
  await expect(state.getByText('Not initialized')).toBeVisible();
  await expect(state.getByText('Running', { exact: true })).toBeVisible({ timeout: 90_000 });

  const instance = await (await page.request.get(`${baseURL()}/instances/${id}`, { headers: { accept: 'application/json' } })).json();
  expect(instance).toMatchObject({ status: 'running', type: 'pg' });
  const port = String(instance.port);

  await page.getByRole('link', { name: 'Edit configuration' }).click();
  await expect(page).toHaveURL(new RegExp(`/instances/${id}/configuration$`));
  await page.getByLabel('Search parameters').fill('work_mem');
  const workMem = page.getByRole('textbox', { name: 'work_mem', exact: true });
  await expect(workMem).toHaveValue('4096');
  await workMem.fill('16384');
  await page.getByRole('button', { name: /Review changes/ }).click();
  const review = page.getByRole('dialog', { name: 'Review changes' });
  await expect(review.getByText('work_mem')).toBeVisible();
  await review.getByRole('button', { name: 'Save and reload' }).click();
  await expect(review).toBeHidden();
  await expect(workMem).toHaveValue('16384');

  // The running server really has the new value: psql over the instance's loopback port.
  const secret = await (
    await page.request.post(`${baseURL()}/instances/${id}/connection/secret?role=superuser`, {
      headers: { accept: 'application/json', 'content-type': 'application/json', origin: baseURL() },
      data: {},
    })
  ).json();
  const shown = execFileSync('/usr/lib/postgresql/15/bin/psql', ['-h', '127.0.0.1', '-p', port, '-U', 'postgres', '-d', 'postgres', '-Atc', 'show work_mem'], {
    env: { ...process.env, PGPASSWORD: secret.password },
  })
    .toString()
    .trim();
  expect(shown).toBe('16MB');

  await page.goto(`${baseURL()}/instances/${id}`);
  const operations = page.getByRole('group', { name: 'Operations' });
  await operations.getByRole('button', { name: 'Stop', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Stop' }).click();
  await expect
    .poll(async () => (await (await page.request.get(`${baseURL()}/instances/${id}`, { headers: { accept: 'application/json' } })).json()).status, { timeout: 60_000 })
    .toBe('stopped');
  await expect(page.getByRole('group', { name: 'State' }).getByText('Stopped', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(operations.getByRole('button', { name: 'Start', exact: true })).toBeEnabled();

  // The list shows it stopped too.
  await page.getByRole('navigation').getByRole('link', { name: 'Instances' }).click();
  await expect(page.getByRole('row', { name: /orders-e2e/ }).getByText('Stopped')).toBeVisible();
});
