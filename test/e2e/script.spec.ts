import { expect, test, type APIRequestContext } from '@playwright/test';
import { Client } from 'pg';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { axeViolations } from './axe';
import { pickOption } from './pickOption';
import { baseURL, change, json, statusOf } from './api';

// A script written, saved and run from the console, in Chromium, against the real server and a real
// PostgreSQL instance: the run goes on a live copy, its progress arrives over the hub, the results
// show the rows the script made, and the instance itself never gets the table.

test.setTimeout(180_000);

/** Whether the instance itself has the table, asked as its owner role the way a person connects. */
async function instanceHasTable(request: APIRequestContext, id: string, table: string): Promise<boolean> {
  const connection = (await (await request.get(`${baseURL()}/instances/${id}/connection`, { headers: json })).json()) as { host: string; port: number; user: string; database: string };
  const { password } = (await (await request.post(`${baseURL()}/instances/${id}/connection/secret`, { headers: change(), data: {} })).json()) as { password: string };
  const client = new Client({ ...connection, password });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: string | null }>('select to_regclass($1)::text as found', [table]);
    return rows[0].found !== null;
  } finally {
    await client.end();
  }
}

const script = "create table fruit (id int primary key, name text);\ninsert into fruit values (1, 'apple'), (2, 'pear');\nselect id, name from fruit order by id;";

test('an admin writes a script, saves it with Ctrl+S, runs it on a live copy and sees the rows, while the instance stays untouched', async ({ page }) => {
  await page.goto(`${baseURL()}/instances`);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/instances$/);

  // The instance itself is not under test here: made over the API (reused when a retry finds it).
  const listed = (await (await page.request.get(`${baseURL()}/instances?search=script-e2e`, { headers: json })).json()) as { items: { id: string; name: string }[] };
  let id = listed.items.find((instance) => instance.name === 'script-e2e')?.id;
  if (!id) {
    const created = await page.request.post(`${baseURL()}/instances`, { headers: change(), data: { name: 'script-e2e', type: 'pg' } });
    expect(created.status()).toBe(202);
    id = ((await created.json()) as { id: string }).id;
  }
  await expect.poll(() => statusOf(page.request, id), { timeout: 90_000 }).toBe('running');

  // From the instance page, as a person finds it.
  await page.goto(`${baseURL()}/instances/${id}`);
  await page.getByRole('navigation', { name: 'Instance pages' }).getByRole('link', { name: 'Script' }).click();
  await expect(page).toHaveURL(new RegExp(`/instances/${id}/script$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Script' })).toBeVisible();

  const editor = page.getByRole('textbox', { name: 'SQL script' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(script);
  await expect(page.getByText('Unsaved changes')).toBeVisible();
  await page.keyboard.press('ControlOrMeta+s');
  await expect(page.getByText('Script saved')).toBeVisible();
  await expect(page.getByText('Unsaved changes')).toBeHidden();
  expect(((await (await page.request.get(`${baseURL()}/instances/${id}/script`, { headers: json })).json()) as { script: string }).script).toBe(script);

  // No backup is needed for a live copy.
  await pickOption(page.getByRole('combobox', { name: 'Run on a copy of' }), 'Live copy (the data now)');
  await page.getByRole('button', { name: /^Run/ }).click();
  await expect(page.getByRole('progressbar', { name: 'Run progress' })).toBeVisible();

  const results = page.getByRole('region', { name: 'Results' });
  await expect(results.getByText('Succeeded', { exact: true })).toBeVisible({ timeout: 120_000 });
  await expect(page.getByRole('progressbar', { name: 'Run progress' })).toBeHidden();
  await expect(results.getByText('Live copy')).toBeVisible();
  const rows = results.getByRole('table', { name: 'Rows of statement 3' });
  await expect(rows.getByRole('columnheader')).toHaveText([/^id\s*int4$/, /^name\s*text$/]);
  await expect(rows.getByRole('row').filter({ has: page.getByRole('cell') })).toHaveText([/1\s*apple/, /2\s*pear/]);
  await expect(results.getByRole('table', { name: 'Changes' }).getByRole('row', { name: /public\.fruit/ })).toContainText('+2');

  // The run is in the history, and the instance never saw the table.
  await expect(page.getByRole('table', { name: 'Runs' }).getByRole('row').filter({ hasText: 'Live copy' })).toHaveCount(1);
  expect(await instanceHasTable(page.request, id, 'public.fruit')).toBe(false);

  // The screen with results on it (editor, statements, row grid, changes, history) passes axe in a light
  // and a dark theme; after a reload the newest run is the one on show.
  for (const theme of ['aura-light-green', 'aura-dark-green']) {
    await page.evaluate((name) => window.localStorage.setItem('theme', name), theme);
    await page.reload();
    await expect(page.locator('link#theme-link')).toHaveAttribute('href', new RegExp(`/${theme}\\.css$`));
    await expect(results.getByRole('table', { name: 'Rows of statement 3' })).toBeVisible();
    await expect(editor).toBeVisible();
    expect(await axeViolations(page), theme).toEqual([]);
  }
});
