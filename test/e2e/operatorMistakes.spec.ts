import path from 'node:path';
import { expect, test, type APIRequestContext, type Cookie, type Locator, type Page } from '@playwright/test';
import { Client } from 'pg';
import { debianEngineBinaries } from '../../server/engines/detect';
import { pgEngine } from '../../server/engines/pg';
import { change, json, statusOf } from './api';
import { admin } from './globalSetup';
import { pickOption } from './pickOption';
import { signIn } from './signIn';
import { CrashableWarden } from './wardenProcess';

// What an operator's slips and bad luck look like in the console, in Chromium, against a real server
// and a real PostgreSQL instance: a reload or a lost connection in the middle of an operation, a page
// number past the end, a script run on an instance with no backup, a form with a wrong value.
// The file has a server of its own, so one test may kill it, and one instance the tests share.

type Instance = { id: string; status: string; operation: { kind: string } | null };

let warden: CrashableWarden;
/** The admin's session, signed in once: each test's browser starts with it. */
let session: Cookie[];
let instanceId: string;
const instanceName = 'mistakes-pg';

test.beforeEach(({ context }) => context.addCookies(session));

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  // Ports of its own: the shared server's instances keep theirs.
  warden = await CrashableWarden.start('mistakes', admin, { WARDEN_INSTANCE_PORTS: '15900-15999' });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${warden.url}/login`);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/instances$/);
  const created = await page.request.post(`${warden.url}/instances`, { headers: change(warden.url), data: { name: instanceName, type: 'pg' } });
  expect(created.status()).toBe(202);
  instanceId = ((await created.json()) as { id: string }).id;
  await expect.poll(() => statusOf(page.request, instanceId, warden.url), { timeout: 90_000 }).toBe('running');
  session = await context.cookies();
  await context.close();
});
test.afterAll(() => warden?.stop());

const instanceOf = async (request: APIRequestContext): Promise<Instance> =>
  (await (await request.get(`${warden.url}/instances/${instanceId}`, { headers: json })).json()) as Instance;

/**
 * Holds the instance's postmaster still (SIGSTOP) until the returned release (SIGCONT): an operation
 * on it then lasts as long as the test needs, where on a fast machine it would be over before a
 * reloaded page asks. Signals sent meanwhile (a stop's SIGINT, a reload's SIGHUP) wait for the release.
 */
function holdPostmaster(): () => void {
  const pid = pgEngine(debianEngineBinaries).pid({ id: instanceId, dir: path.join(warden.dataDir, 'instances', instanceId), port: 0 });
  if (pid === null) throw new Error('the instance has no postmaster to hold');
  process.kill(pid, 'SIGSTOP');
  held.add(pid);
  return () => {
    held.delete(pid);
    process.kill(pid, 'SIGCONT');
  };
}
const held = new Set<number>();
// A test that fails while it holds the postmaster lets it go, so the next one (and the stop) find it working.
test.afterEach(() => {
  for (const pid of held) process.kill(pid, 'SIGCONT');
  held.clear();
});

const state = (page: Page) => page.getByRole('group', { name: 'State' });
const operations = (page: Page) => page.getByRole('group', { name: 'Operations' });
/** Whether the page shows an operation running, all read from one rendering: its progress, a busy group, Delete waiting. */
const runningOperationShown = (page: Page, progress: string) =>
  page.evaluate((text) => {
    const group = document.querySelector('[role="group"][aria-label="Operations"]');
    const remove = [...(group?.querySelectorAll('button') ?? [])].find((b) => b.textContent?.trim() === 'Delete');
    const shown = document.querySelector('[role="group"][aria-label="State"]')?.textContent ?? '';
    return { progress: shown.includes(text), busy: group?.getAttribute('aria-busy') ?? null, deleteDisabled: remove?.disabled ?? null };
  }, progress);

test.describe('an operation in progress', () => {
  test.setTimeout(90_000);

  test('a reload of the browser while an operation runs shows it from the server, then its end with the actions back', async ({ page }) => {
    await page.goto(`${warden.url}/instances/${instanceId}`);
    await expect(state(page).getByText('Running', { exact: true })).toBeVisible();

    const steps = [
      { button: 'Restart', path: 'restart', kind: 'restart', confirm: true, progress: 'Restarting…', ends: 'running', held: true },
      { button: 'Stop', path: 'stop', kind: 'stop', confirm: true, progress: 'Stopping…', ends: 'stopped', held: true },
      // A stopped instance has no postmaster to hold: the reload races the start, which it usually wins.
      { button: 'Start', path: 'start', kind: 'start', confirm: false, progress: 'Starting…', ends: 'running', held: false },
      { button: 'Reload configuration', path: 'reload-configuration', kind: 'reload', confirm: false, progress: 'Reloading the configuration…', ends: 'running', held: true },
    ] as const;
    for (const step of steps) {
      await test.step(step.button, async () => {
        const release = step.held ? holdPostmaster() : undefined;
        try {
          const accepted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/instances/${instanceId}/${step.path}`));
          await operations(page).getByRole('button', { name: step.button, exact: true }).click();
          if (step.confirm) await page.getByRole('dialog').getByRole('button', { name: step.button, exact: true }).click();
          expect((await accepted).status()).toBe(202);
          const loaded = page.waitForResponse((r) => r.request().resourceType() === 'fetch' && r.url().endsWith(`/instances/${instanceId}`));
          await page.reload();
          const onLoad = (await (await loaded).json()) as Instance;
          if (step.held) {
            // The page knows of the operation only from the server's answer: it shows it and waits.
            expect(onLoad.operation?.kind).toBe(step.kind);
            // Read in one look: a held reload lasts only as long as its connection's 5 s timeout, which a
            // slow machine's reload of the page can nearly use up.
            await expect.poll(() => runningOperationShown(page, step.progress)).toEqual({ progress: true, busy: 'true', deleteDisabled: true });
          } else {
            test.info().annotations.push({ type: 'start', description: onLoad.operation ? 'the page loaded while the start ran' : 'the start was over before the page loaded' });
          }
        } finally {
          release?.();
        }
        const label = step.ends === 'running' ? 'Running' : 'Stopped';
        await expect(state(page).getByText(label, { exact: true })).toBeVisible({ timeout: 30_000 });
        await expect(state(page).getByText(step.progress)).toBeHidden();
        await expect(operations(page)).toHaveAttribute('aria-busy', 'false');
        await expect(operations(page).getByRole('button', { name: step.ends === 'running' ? 'Stop' : 'Start', exact: true })).toBeEnabled();
        await expect(operations(page).getByRole('button', { name: 'Delete' })).toBeEnabled();
        expect(await instanceOf(page.request)).toMatchObject({ status: step.ends, operation: null });
      });
    }
  });
});

const liveStatus = (page: Page) => page.getByRole('status', { name: /Live connection/ });

test('a lost connection while an operation runs ends on the real outcome once the hub is back, without a reload', async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto(`${warden.url}/instances/${instanceId}`);
  await expect(state(page).getByText('Running', { exact: true })).toBeVisible();
  await expect(liveStatus(page)).toHaveAccessibleName(/Live$/);
  let reloads = 0;
  page.on('load', () => (reloads += 1));

  const release = holdPostmaster();
  await operations(page).getByRole('button', { name: 'Restart', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Restart', exact: true }).click();
  await expect(state(page).getByText('Restarting…')).toBeVisible();
  // The server dies in the middle of the restart: no OperationCompleted will ever come for it.
  await warden.kill();
  await expect(liveStatus(page)).toHaveAccessibleName(/Reconnecting/);
  release();
  await warden.startAgain();
  await expect(liveStatus(page)).toHaveAccessibleName(/Live$/, { timeout: 45_000 });

  await expect(state(page).getByText('Running', { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(state(page).getByRole('status')).toHaveCount(0);
  await expect(operations(page)).toHaveAttribute('aria-busy', 'false');
  await expect(operations(page).getByRole('button', { name: 'Stop', exact: true })).toBeEnabled();
  expect(await instanceOf(page.request)).toMatchObject({ status: 'running', operation: null });
  expect(reloads).toBe(0);
});

test('a page number past the end says so with a way back, and one past the allowed range says the range once', async ({ page }) => {
  await page.goto(`${warden.url}/instances?page=50`);
  await expect(page.getByText('Page 50 is past the end')).toBeVisible();
  await expect(page.getByText('The list has 1 page.')).toBeVisible();
  await page.getByRole('link', { name: 'Go to page 1' }).click();
  await expect(page).toHaveURL(`${warden.url}/instances`);
  await expect(page.getByRole('table', { name: 'Instances' }).getByRole('link', { name: instanceName })).toBeVisible();

  // The list is asked for twice: on arrival, and again once its hub group is joined.
  let refusals = 0;
  page.on('response', (response) => {
    if (response.request().resourceType() === 'fetch' && response.url().includes('page=999999999') && response.status() === 400) refusals += 1;
  });
  await page.goto(`${warden.url}/instances?page=999999999`);
  await expect(page.getByText('There is no page 999999999')).toBeVisible();
  await expect(page.getByText('Page numbers run from 1 to 1,000,000.')).toBeVisible();
  await expect(page.getByText('The server did not answer as expected.')).toHaveCount(0);
  await expect.poll(() => refusals).toBe(2);
  // The API's own words, in one toast however often they came, clear of the header's buttons.
  const refused = await page.request.get(`${warden.url}/instances?page=999999999`, { headers: json });
  expect(refused.status()).toBe(400);
  expect(((await refused.json()) as { errors: Record<string, string[]> }).errors).toEqual({ page: ['must be <= 1000000'] });
  const toasts = page.getByRole('region', { name: 'Notifications' });
  await expect(toasts.getByRole('alert')).toHaveText([/^Request failed\s*page must be <= 1000000\.$/]);
  await expectClearOfHeader(page, toasts);

  await page.getByRole('link', { name: 'Go to page 1' }).click();
  await expect(page).toHaveURL(`${warden.url}/instances`);
  await expect(page.getByRole('table', { name: 'Instances' }).getByRole('link', { name: instanceName })).toBeVisible();
});

/** Adds a table to the live instance itself, as its owner role, so a copy of it can be told from an empty one. */
async function addTableToInstance(request: APIRequestContext, table: string) {
  const connection = (await (await request.get(`${warden.url}/instances/${instanceId}/connection`, { headers: json })).json()) as { host: string; port: number; user: string; database: string };
  const { password } = (await (await request.post(`${warden.url}/instances/${instanceId}/connection/secret`, { headers: change(warden.url), data: {} })).json()) as { password: string };
  const client = new Client({ ...connection, password });
  await client.connect();
  try {
    await client.query(`create table if not exists ${table} (id int)`);
  } finally {
    await client.end();
  }
}

test('a script on an instance without a backup runs only on a copy chosen on purpose, and says which', async ({ page }) => {
  test.setTimeout(120_000);
  await addTableToInstance(page.request, 'only_live');
  const script = "select count(*) as found from pg_class where relname = 'only_live'";

  // Asked over the API without a source, the server refuses rather than run on an empty database.
  const refused = await page.request.post(`${warden.url}/instances/${instanceId}/script`, { headers: change(warden.url), data: { script } });
  expect(refused.status()).toBe(409);
  expect(((await refused.json()) as { detail: string }).detail).toBe(
    "The instance has no backup to copy, so the script would run on an empty database. Choose source 'live' for a copy of the live instance, or source 'empty' for an empty instance.",
  );

  await page.goto(`${warden.url}/instances/${instanceId}/script`);
  await expect(page.getByText('This instance has no backup yet')).toBeVisible();
  await expect(
    page.getByText('Run the script on a copy of the live instance or on an empty instance: choose one under “Run on a copy of”.'),
  ).toBeVisible();
  const source = page.getByRole('combobox', { name: 'Run on a copy of' });
  await expect(source).toHaveText(/Newest backup \(there is none\)/);
  const run = page.getByRole('button', { name: /^Run/ });
  const results = page.getByRole('region', { name: 'Results' });
  let runsAsked = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith(`/instances/${instanceId}/script`)) runsAsked += 1;
  });
  await page.getByRole('textbox', { name: 'SQL script' }).click();
  await page.keyboard.insertText(script);
  // Not chosen yet: neither the button nor the keyboard asks for a run.
  await expect(run).toBeDisabled();
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(results.getByText('No runs yet.')).toBeVisible();

  for (const [option, said, found] of [
    ['Live copy (the data now)', 'Live copy', '1'],
    ['Empty instance (no data)', 'Empty instance', '0'],
  ] as const) {
    await pickOption(source, option);
    await expect(page.getByText('This instance has no backup yet')).toBeHidden();
    if (said === 'Live copy') expect(runsAsked).toBe(0);
    await run.click();
    await expect(results.getByText('Succeeded', { exact: true })).toBeVisible({ timeout: 60_000 });
    await expect(results.getByText(said, { exact: true })).toBeVisible();
    await expect(results.getByRole('table', { name: 'Rows of statement 1' }).getByRole('row').filter({ has: page.getByRole('cell') })).toHaveText([found]);
  }
  await expect(page.getByRole('table', { name: 'Runs' }).getByRole('row').filter({ hasText: /Live copy|Empty instance/ })).toHaveCount(2);
});

test('a value the server refuses is said once, beside its field, and never as a generic toast', async ({ page }) => {
  await page.goto(`${warden.url}/instances/create`);
  await page.getByLabel('Name').fill('mistakes-refused');
  await expect(page.getByText('This name is available')).toBeVisible();
  await page.getByRole('button', { name: 'Add parameter' }).click();
  await page.getByRole('textbox', { name: 'Parameter 1 name' }).fill('max_connections');
  await page.getByRole('textbox', { name: 'Parameter 1 value' }).fill('lots');
  await page.getByRole('button', { name: 'Create' }).click();

  // Said under the parameter's row, as the error message of its value, which is marked invalid.
  const value = page.getByRole('textbox', { name: 'Parameter 1 value' });
  await expect(value).toHaveAttribute('aria-invalid', 'true');
  const said = page.locator(`[id="${await value.getAttribute('aria-errormessage')}"]`);
  await expect(said).toBeVisible();
  await expect(said).toHaveText('max_connections must be a number.');
  await expect(page).toHaveURL(`${warden.url}/instances/create`);
  await expect(page.getByRole('region', { name: 'Notifications' })).toHaveCount(0);
  await expect(page.getByText('One or more validation errors occurred.')).toHaveCount(0);
  const listed = (await (await page.request.get(`${warden.url}/instances?search=mistakes-refused`, { headers: json })).json()) as { total: number };
  expect(listed.total).toBe(0);
});

/** The toasts' box shares no area with any action (button or link) of the screen's header; it has some. */
async function expectClearOfHeader(page: Page, toasts: Locator) {
  const region = (await toasts.boundingBox())!;
  const header = page.locator('main header');
  const buttons = await header.getByRole('button').or(header.getByRole('link')).all();
  expect(buttons.length).toBeGreaterThan(0);
  for (const button of buttons) {
    const box = (await button.boundingBox())!;
    const overlap = region.x < box.x + box.width && box.x < region.x + region.width && region.y < box.y + box.height && box.y < region.y + region.height;
    expect(overlap, `the toasts cover ${await button.textContent()}`).toBe(false);
  }
}

test('a toast leaves the page header’s buttons clear at every width, and a success toast can be dismissed', async ({ page }) => {
  await page.goto(`${warden.url}/instances/${instanceId}`);
  await expect(state(page).getByText('Running', { exact: true })).toBeVisible();
  // Wide, medium (the six operations wrap onto two rows beside the title), phone.
  for (const viewport of [{ width: 1280, height: 720 }, { width: 800, height: 900 }, { width: 390, height: 844 }]) {
    await test.step(`${viewport.width} px wide`, async () => {
      await page.setViewportSize(viewport);
      await operations(page).getByRole('button', { name: 'Reload configuration' }).click();
      const toasts = page.getByRole('region', { name: 'Notifications' });
      const toast = toasts.getByRole('status').filter({ hasText: `${instanceName} reloaded its configuration` });
      await expect(toast).toBeVisible();
      await expectClearOfHeader(page, toasts);
      // Gone at once on Dismiss, well before a success toast's own 4 s.
      await toast.getByRole('button', { name: 'Dismiss' }).click();
      await expect(toast).toBeHidden({ timeout: 1_000 });
    });
  }
});
