import { expect, test, type Page } from '@playwright/test';
import { admin, regular } from './globalSetup';
import { signIn } from './signIn';
import { baseURL, change } from './api';

// The console's rough edges, in the real browser against the real server.

/** Whether the page itself scrolls sideways (a table too wide for the screen pushes the body). */
const bodyScrollsSideways = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth > document.scrollingElement!.clientWidth);

test.describe('on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('no list screen scrolls the page sideways: wide tables scroll inside their frame', async ({ page }) => {
    await page.goto(`${baseURL()}/instances`);
    await signIn(page, admin);
    await expect(page).toHaveURL(/\/instances$/);
    // A row with every column filled, so the table is as wide as it gets.
    await page.request.post(`${baseURL()}/groups`, { headers: change(), data: { name: 'phone-width-group' } });

    for (const [path, table] of [
      ['/instances', null],
      ['/groups', 'Groups'],
      ['/backups', null],
      ['/admin/users', 'Users'],
      ['/admin/audit', 'Audit entries'],
      ['/debug', 'Engines'],
      ['/logs', null],
      ['/graphs/instance-creation', null],
      ['/instances/create', null],
      ['/profile', null],
    ] as const) {
      await page.goto(`${baseURL()}${path}`);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      if (table) await expect(page.getByRole('table', { name: table })).toBeVisible();
      expect(await bodyScrollsSideways(page), `${path} scrolls the page sideways`).toBe(false);
    }
  });
});

test('a regular user opening /debug by URL lands on /instances with no refusal shown', async ({ page }) => {
  await page.goto(`${baseURL()}/debug`);
  await signIn(page, regular);
  await expect(page).toHaveURL(/\/instances$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Instances' })).toBeVisible();
  await expect(page.getByText('Request failed')).toHaveCount(0);
  await page.goto(`${baseURL()}/debug`);
  await expect(page).toHaveURL(/\/instances$/);
  await expect(page.getByText('Request failed')).toHaveCount(0);
});

test('a user disabled while signed in reads why on the sign-in page, not a websocket failure', async ({ page, browser }) => {
  const someone = { email: `disabled-${Date.now()}@e2e.test`, password: 'D1sabled!passw0rd' };
  const adminPage = await (await browser.newContext()).newPage();
  await adminPage.goto(`${baseURL()}/instances`);
  await signIn(adminPage, admin);
  await expect(adminPage).toHaveURL(/\/instances$/);
  const created = await adminPage.request.post(`${baseURL()}/admin/users`, { headers: change(), data: { ...someone, role: 'regular' } });
  expect(created.ok()).toBe(true);
  const { id } = (await created.json()) as { id: string };

  await page.goto(`${baseURL()}/instances`);
  await signIn(page, someone);
  await expect(page.getByRole('heading', { level: 1, name: 'Instances' })).toBeVisible();
  await expect(page.getByText('Live', { exact: true })).toBeVisible();

  const disabled = await adminPage.request.put(`${baseURL()}/admin/users/${id}`, { headers: change(), data: { disabled: true } });
  expect(disabled.ok()).toBe(true);

  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByText('Your account was disabled.')).toBeVisible();
  await expect(page.getByText('Websocket connection failed')).toHaveCount(0);
  await adminPage.context().close();
});
