import { hostname } from 'node:os';
import { expect, test, type Page } from '@playwright/test';
import type { HostList } from '../../contracts/hosts';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { axeViolations } from './axe';
import { baseURL, change, json } from './api';
import { loaded } from './a11ySetup';

// The Hosts screen in Chromium against the real single-process server, whose one host is its own
// machine, named after it: found from the sidebar, drained after the question, put back in service.
// The screen at rest is checked with axe by accessibility.spec.ts; the question and the draining
// state are checked here.

const hostName = process.env.WARDEN_HOST_NAME || hostname();

async function hostsOf(page: Page): Promise<HostList> {
  const answer = await page.request.get(`${baseURL()}/hosts`, { headers: json });
  expect(answer.status()).toBe(200);
  return (await answer.json()) as HostList;
}

async function signedIn(page: Page) {
  await page.goto(`${baseURL()}/instances`);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/instances$/);
}

const hostsTable = (page: Page) => page.getByRole('table', { name: 'Hosts' });
/** The one host's row: its name with its address beneath, then state, instances and so on. */
const hostRow = (page: Page) => hostsTable(page).getByRole('row').filter({ hasText: hostName });
const stateCell = (page: Page) => hostRow(page).getByRole('cell').nth(1);

/** Asks to drain the server's host: the question, open. */
async function drain(page: Page) {
  await hostRow(page).getByRole('button', { name: `Drain host ${hostName}` }).click();
  const question = page.getByRole('dialog', { name: `Drain host ${hostName}?` });
  await expect(question).toBeVisible();
  return question;
}

// Instances are placed on this host by the specs that follow: it never stays drained.
test.afterEach(async ({ page }) => {
  for (const host of (await hostsOf(page)).items.filter((h) => h.draining)) {
    await page.request.put(`${baseURL()}/hosts/${host.id}`, { headers: change(), data: { draining: false } });
  }
});

test('an admin reaches Hosts from the sidebar by keyboard, drains the server’s own host after the question, and stops draining it', async ({ page }) => {
  await signedIn(page);
  await loaded(page, 'Instances');

  // Tab through the page to the sidebar's Hosts entry and follow it with Enter.
  const entry = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Hosts' });
  for (let presses = 0; presses < 30 && !(await entry.evaluate((el) => el === document.activeElement)); presses++) {
    await page.keyboard.press('Tab');
  }
  await expect(entry).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/admin\/hosts$/);
  await loaded(page, 'Hosts');
  await expect(page.getByText(/A host is lost once it misses 3 heartbeats/)).toBeVisible();

  // One host: the server's machine, online, with however many instances the specs before left.
  await expect(hostsTable(page).getByRole('row')).toHaveCount(2);
  await expect(hostRow(page)).toBeVisible();
  await expect(stateCell(page)).toHaveText('Online');
  await expect(hostRow(page).getByRole('cell').nth(2)).toHaveText(/^\d+$/);
  const [host] = (await hostsOf(page)).items;
  expect(host).toMatchObject({ name: hostName, state: 'online', draining: false });

  // Drain: the button by keyboard, the question first; Escape leaves the host as it was.
  await hostRow(page).getByRole('button', { name: `Drain host ${hostName}` }).focus();
  await page.keyboard.press('Enter');
  const question = page.getByRole('dialog', { name: `Drain host ${hostName}?` });
  await expect(question).toContainText('It keeps its instances, but no new instance is placed on it.');
  await page.keyboard.press('Escape');
  await expect(question).toBeHidden();
  expect((await hostsOf(page)).items[0].draining).toBe(false);

  await (await drain(page)).getByRole('button', { name: 'Drain', exact: true }).click();
  await expect(stateCell(page)).toHaveText('OnlineDraining');
  await expect(page.getByText('Host draining')).toBeVisible();
  expect((await hostsOf(page)).items[0].draining).toBe(true);

  // Back in service at once, without a question.
  await hostRow(page).getByRole('button', { name: `Stop draining host ${hostName}` }).click();
  await expect(stateCell(page)).toHaveText('Online');
  await expect(page.getByText('Draining stopped')).toBeVisible();
  expect((await hostsOf(page)).items[0].draining).toBe(false);
});

for (const theme of ['aura-light-green', 'aura-dark-green']) {
  test(`the drain question and a draining host have no serious or critical axe violation in ${theme}`, async ({ page }) => {
    await page.addInitScript((name) => window.localStorage.setItem('theme', name), theme);
    await signedIn(page);
    await page.goto(`${baseURL()}/admin/hosts`);
    await loaded(page, 'Hosts');
    await expect(hostRow(page)).toBeVisible();

    const question = await drain(page);
    const found = [...(await axeViolations(page)).map((line) => `drain question: ${line}`)];
    await question.getByRole('button', { name: 'Drain', exact: true }).click();
    await expect(question).toBeHidden();
    await expect(stateCell(page)).toHaveText('OnlineDraining');
    await loaded(page, 'Hosts');
    found.push(...(await axeViolations(page)).map((line) => `draining host: ${line}`));

    await hostRow(page).getByRole('button', { name: `Stop draining host ${hostName}` }).click();
    await expect(stateCell(page)).toHaveText('Online');
    expect(found.join('\n'), 'serious or critical axe violations').toBe('');
  });
}
