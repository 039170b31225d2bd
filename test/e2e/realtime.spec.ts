import { expect, test, type Browser, type Page } from '@playwright/test';
import { admin, regular } from './globalSetup';
import { signIn } from './signIn';
import { CrashableWarden } from './wardenProcess';

const liveStatus = (page: Page) => page.getByRole('status', { name: /Live connection/ });

async function signedInPage(browser: Browser, url: string, who: { email: string; password: string }) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${url}/login`);
  await signIn(page, who);
  await expect(page).toHaveURL(/\/instances$/);
  await expect(liveStatus(page)).toHaveAccessibleName(/Live$/);
  return page;
}

test('a DebugMessage sent to all appears as a toast in another signed-in browser without reload', async ({ browser }) => {
  const url = process.env.WARDEN_E2E_URL!;
  const sender = await signedInPage(browser, url, admin);
  const receiver = await signedInPage(browser, url, regular);

  await sender.goto(`${url}/debug`);
  // The page load opened a new connection: a message sent to all before it is live would pass it by.
  await expect(liveStatus(sender)).toHaveAccessibleName(/Live$/);
  await sender.getByRole('textbox', { name: 'Message' }).fill('Maintenance at noon');
  await sender.getByRole('button', { name: 'Send to all' }).click();

  await expect(receiver.getByText('Maintenance at noon')).toBeVisible();
  await expect(receiver.getByText(`Message from ${admin.email}`)).toBeVisible();
  // The sender hears it too, and the debug page lists it among the pushed events.
  await expect(sender.getByRole('table', { name: 'Received events' }).getByText('DebugMessage').first()).toBeVisible();
});

test.describe('a server restart', () => {
  let warden: CrashableWarden;
  test.beforeAll(async () => {
    warden = await CrashableWarden.start('restart', admin);
  });
  test.afterAll(() => warden.stop());

  test('shows Reconnecting, then Connected again, and the page keeps receiving its group events', async ({ browser }) => {
    test.setTimeout(90_000);
    const page = await signedInPage(browser, warden.url, admin);
    await page.goto(`${warden.url}/groups`);
    await expect(page.getByRole('heading', { level: 1, name: 'Groups' })).toBeVisible();
    await expect(liveStatus(page)).toHaveAccessibleName(/Live$/);

    await warden.kill();
    await expect(liveStatus(page)).toHaveAccessibleName(/Reconnecting/);
    await warden.startAgain();
    await expect(liveStatus(page)).toHaveAccessibleName(/Live$/, { timeout: 45_000 });

    // A group created elsewhere reaches this page live: the hub group was joined again.
    const other = await signedInPage(browser, warden.url, admin);
    const created = await other.request.post(`${warden.url}/groups`, {
      data: { name: 'after-restart', description: 'made while another page watched' },
      headers: { origin: warden.url, accept: 'application/json' },
    });
    expect(created.status()).toBe(201);
    await expect(page.getByRole('link', { name: 'after-restart' })).toBeVisible();
    await Promise.all([page.context().close(), other.context().close()]);
  });
});
