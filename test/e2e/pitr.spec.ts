import { expect, test, type APIRequestContext, type Cookie } from '@playwright/test';
import { Client } from 'pg';
import type { Backup } from '../../contracts/backups';
import type { ConnectionInfo } from '../../contracts/instances';
import type { RecoveryWindow } from '../../contracts/pitr';
import { axeViolations } from './axe';
import { baseURL, change, json, statusOf } from './api';
import { admin } from './globalSetup';
import { signIn } from './signIn';

// Point-in-time recovery of a real PostgreSQL instance, in Chromium, against the real server: rows
// written through SQL before and after a full physical backup, the window drawn on the database
// backups page, a restore drill run from there with its outcome arriving live, a moment before the
// window refused in the restore dialog, and a restore to the latest moment into a new instance that
// holds every row. One source instance for the file; it and the restored one are deleted afterwards.

test.setTimeout(90_000);
// The restore's estimate comes from the drill the first test runs.
test.describe.configure({ mode: 'serial' });

/** The admin's session, signed in once: each test's browser starts with it. */
let session: Cookie[];
let sourceId: string;
/** The rows written: the first before the backup, which holds it; the second after, which only the archived WAL holds. */
const rows = ['before the backup', 'after the backup'];
const restoredName = `pitr-e2e-latest-${Date.now().toString(36)}`;
const made: string[] = [];

/** Runs SQL on an instance as its owner, connected the way a person would from the connection details. */
async function sql<T extends Record<string, unknown>>(request: APIRequestContext, id: string, text: string, role: 'owner' | 'superuser' = 'owner'): Promise<T[]> {
  const connection = (await (await request.get(`${baseURL()}/instances/${id}/connection`, { headers: json })).json()) as ConnectionInfo;
  const asked = await request.post(`${baseURL()}/instances/${id}/connection/secret${role === 'superuser' ? '?role=superuser' : ''}`, { headers: change(), data: {} });
  expect(asked.status()).toBe(200);
  const { password } = (await asked.json()) as { password: string };
  const user = role === 'superuser' ? 'postgres' : connection.user!;
  const client = new Client({ host: connection.host, port: connection.port, database: connection.database!, user, password });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const windowOf = async (request: APIRequestContext): Promise<RecoveryWindow> =>
  (await (await request.get(`${baseURL()}/instances/${sourceId}/recovery-window`, { headers: json })).json()) as RecoveryWindow;

test.beforeEach(({ context }) => context.addCookies(session));

test.beforeAll(async ({ browser }) => {
  test.setTimeout(90_000);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${baseURL()}/login`);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/instances$/);
  session = await context.cookies();
  const { request } = page;

  // The source is not what is under test: made over the API.
  const created = await request.post(`${baseURL()}/instances`, { headers: change(), data: { name: `pitr-e2e-${Date.now().toString(36)}`, type: 'pg' } });
  expect(created.status()).toBe(202);
  sourceId = ((await created.json()) as { id: string }).id;
  made.push(sourceId);
  await expect.poll(() => statusOf(request, sourceId), { timeout: 60_000 }).toBe('running');

  await sql(request, sourceId, 'create table notes (id serial primary key, said text not null)');
  await sql(request, sourceId, `insert into notes (said) values ('${rows[0]}')`);

  const taken = await request.post(`${baseURL()}/instances/${sourceId}/backups/database/backup`, { headers: change(), data: { kind: 'full' } });
  expect(taken.status()).toBe(202);
  const backupId = ((await taken.json()) as Backup).id;
  await expect
    .poll(
      async () => {
        const listed = (await (await request.get(`${baseURL()}/instances/${sourceId}/backups/database`, { headers: json })).json()) as { items: Backup[] };
        return listed.items.find((backup) => backup.id === backupId)?.status;
      },
      { timeout: 60_000 },
    )
    .toBe('succeeded');

  // A row only the WAL holds, archived at once rather than after the archive timeout.
  await sql(request, sourceId, `insert into notes (said) values ('${rows[1]}')`);
  const [{ now }] = await sql<{ now: Date }>(request, sourceId, 'select clock_timestamp() as now');
  await sql(request, sourceId, 'select pg_switch_wal()', 'superuser');
  await expect
    .poll(
      async () => {
        const { latest } = await windowOf(request);
        return latest !== null && Date.parse(latest) >= now.getTime();
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  await context.close();
});

test.afterAll(async ({ browser }) => {
  const context = await browser.newContext();
  await context.addCookies(session ?? []);
  for (const id of made) await context.request.delete(`${baseURL()}/instances/${id}?force=true`, { headers: change() });
  await context.close();
});

test('the database backups page draws the recoverable window with the full backup and the latest restorable moment, and drills a restore', async ({ page }) => {
  const window = await windowOf(page.request);
  const [full] = window.backups;
  expect(full.kind).toBe('full');

  await page.goto(`${baseURL()}/instances/${sourceId}/backups/database`);
  const section = page.getByRole('region', { name: 'Point-in-time recovery' });
  const timeline = section.getByRole('figure', { name: /^Recoverable from \d\d\/\d\d\/\d\d \d\d:\d\d:\d\d to \d\d\/\d\d\/\d\d \d\d:\d\d:\d\d$/ });
  await expect(timeline).toBeVisible();
  // The full backup's mark on the band, and the same in words for screen readers.
  const mark = timeline.getByTitle(new RegExp(`^Full backup ${full.id}, restorable from `));
  await expect(mark).toBeVisible();
  await expect(mark).toHaveText('F');
  await expect(timeline.getByRole('list', { name: 'On the timeline' }).getByRole('listitem')).toHaveText([new RegExp(`^Full backup ${full.id}, restorable from `)]);
  await expect(timeline.getByText(/^Latest restorable: (just now|\d.* ago)$/)).toBeVisible();
  await expect(section.getByRole('list', { name: 'Problems of the window' })).toHaveCount(0);
  await expect(section.getByText('No drill yet: one runs every week, the first an hour after the first full backup.')).toBeVisible();

  expect(await axeViolations(page)).toEqual([]);

  // A restore drill on demand: busy while it runs, its outcome brought by the hub without a reload.
  await section.getByRole('button', { name: 'Run restore drill' }).click();
  await expect(section.getByText('A drill or verification runs…')).toBeVisible();
  await expect(section.getByRole('button', { name: 'Verify repository' })).toBeDisabled();
  await expect(section.getByText(new RegExp(`^Last restore drill: took .+ — restored to .+ from backup ${full.id}$`))).toBeVisible({ timeout: 30_000 });
  await expect(section.getByText('A drill or verification runs…')).toBeHidden();
  await expect(section.getByRole('button', { name: 'Verify repository' })).toBeEnabled();
});

test('the restore dialog refuses a moment before the window, then restores the latest moment into a new instance that holds every row', async ({ page }) => {
  await page.goto(`${baseURL()}/instances/${sourceId}/backups/database`);
  const section = page.getByRole('region', { name: 'Point-in-time recovery' });
  await section.getByRole('button', { name: 'Restore to a point in time…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore to a point in time' });
  const moment = dialog.getByLabel('Moment to restore to');
  await expect(moment).toBeFocused();

  await moment.fill('2020-01-01T00:00:00');
  await expect(dialog.getByText(/^01\/01\/20 00:00:00 is outside the recoverable window \d\d\/\d\d\/\d\d \d\d:\d\d:\d\d – \d\d\/\d\d\/\d\d \d\d:\d\d:\d\d \(.+\)\.$/)).toBeVisible();
  await expect(moment).toHaveAttribute('aria-invalid', 'true');
  await dialog.getByRole('textbox', { name: 'New instance name' }).fill(restoredName);
  await expect(dialog.getByRole('button', { name: 'Restore' })).toBeDisabled();

  await dialog.getByRole('group', { name: 'Quick picks' }).getByRole('button', { name: 'Latest' }).click();
  await expect(dialog.getByText(/^The latest moment archived when the restore starts; now /)).toBeVisible();
  const plan = dialog.getByRole('region', { name: 'Plan' });
  await expect(plan.getByText(/^Full backup \S+F, restorable from /)).toBeVisible();
  // The drill of the first test set the pace.
  await expect(plan.getByText(/^About .+, from the last drill$/)).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);

  const restoring = page.waitForResponse((response) => response.url().endsWith(`/instances/${sourceId}/restore-point`) && response.request().method() === 'POST' && response.status() === 202);
  await dialog.getByRole('button', { name: 'Restore' }).click();
  const restoredId = ((await (await restoring).json()) as { id: string }).id;
  made.push(restoredId);
  await expect(page).toHaveURL(`${baseURL()}/instances/${restoredId}`);
  await expect(page.getByRole('heading', { level: 1, name: restoredName })).toBeVisible();
  await expect.poll(() => statusOf(page.request, restoredId), { timeout: 60_000 }).toBe('running');

  expect(await sql<{ said: string }>(page.request, restoredId, 'select said from notes order by id')).toEqual(rows.map((said) => ({ said })));
});
