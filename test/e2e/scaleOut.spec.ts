import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { removeInstanceUser } from '../../server/engines/instanceUsers';
import { freeBasePort, startScaleExample, type ScaleExample } from '../../scripts/lib/scale/example';
import { signIn } from './signIn';

// The console through HAProxy in front of two API servers on one store (deploy/scale/README.md),
// each server killed in turn under one open page: the page's live connection comes back through the
// other server, screens go on loading, what was typed stays, and live events still arrive. The page
// is never reloaded.

test.describe.configure({ mode: 'serial' });

/** The agents' instance ports (both ranges), away from other suites' and test/server/scaleExample.test.ts's (21000-21599). */
const instancePorts = { from: 22000, to: 22599 };

/** Base ports from 20600: above the one test/server/scaleExample.test.ts takes first (20400), below its instance ports. */
const basePorts = { from: 20600, to: 20980 };

let dir: string;
let example: ScaleExample;
/** One console page for the whole file: what it lives through is the subject. */
let page: Page;
/** Page loads since sign-in: getting past a server's death must never take one. */
let reloads = 0;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-e2e-scale-'));
  example = await startScaleExample({ dir, basePort: await freeBasePort(basePorts.from, basePorts.to), instancePortBase: instancePorts.from });
  page = await browser.newPage();
});

test.afterAll(async () => {
  test.setTimeout(180_000);
  await page?.close();
  try {
    // Stops the instances first: agents leave theirs running when they stop.
    await example?.stop();
  } finally {
    // Each instance has a system user of its own: none outlives the run.
    for (const host of ['host-1', 'host-2']) {
      const instances = path.join(dir, host, 'instances');
      if (!fs.existsSync(instances)) continue;
      for (const id of fs.readdirSync(instances).filter((name) => !name.startsWith('.'))) await removeInstanceUser(id);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const liveStatus = () => page.getByRole('status', { name: /^Live connection/ });
const nav = () => page.getByRole('navigation', { name: 'Main' });

/** The indicator reads Live; its tooltip is compared first, so that an offline one says why in the failure. */
async function expectLive() {
  await expect(liveStatus()).toHaveAttribute('title', 'Live');
  await expect(liveStatus()).toHaveAccessibleName('Live connection: Live');
}

type Recorder = Window & { connectionStates?: string[] };

/**
 * Writes down the state the connection indicator shows, and every one it changes to: a drop and its
 * reconnect may both pass between two looks at the page.
 */
async function recordConnectionStates() {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as Recorder).connectionStates = seen;
    const note = () => {
      const label = document.querySelector('[role="status"][aria-label^="Live connection"]')?.getAttribute('aria-label');
      if (label && seen.at(-1) !== label) seen.push(label);
    };
    note();
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
  });
}

/** The states the indicator went through since the `from`th, joined by arrows. */
const connectionStatesSince = (from: number) => page.evaluate((n) => ((window as Recorder).connectionStates ?? []).slice(n).join(' → '), from);
const connectionStateCount = () => page.evaluate(() => ((window as Recorder).connectionStates ?? []).length);
const reconnected = 'Live connection: Reconnecting… → Live connection: Live';

/** Hosts, then Instances, from the sidebar: both hosts online, and the Instances screen shown again. */
async function browseHostsAndInstances() {
  await nav().getByRole('link', { name: 'Hosts' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Hosts' })).toBeVisible();
  const hosts = page.getByRole('table', { name: 'Hosts' });
  for (const host of ['host-1', 'host-2']) await expect(hosts.getByRole('row').filter({ hasText: host })).toContainText('Online');

  await nav().getByRole('link', { name: 'Instances' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Instances' })).toBeVisible();
}

test('an admin signs in through HAProxy and lands on the instances list, live', async () => {
  await page.goto(`${example.url}/login`);
  await signIn(page, example.admin);
  await expect(page).toHaveURL(/\/instances$/);
  await expect(page.getByText('No instances yet.')).toBeVisible();
  await expectLive();
  page.on('load', () => (reloads += 1));
  await recordConnectionStates();
});

test('with server-a killed, screens still load through server-b and the connection is live', async () => {
  const before = await connectionStateCount();
  await example.servers[0].kill('SIGKILL');
  await browseHostsAndInstances();
  await expect(page.getByText('No instances yet.')).toBeVisible();
  // A connection on server-a dropped and came back through server-b; one on server-b never dropped.
  await expect.poll(() => connectionStatesSince(before), { timeout: 20_000 }).toMatch(new RegExp(`^(${reconnected})?$`));
  await expectLive();
  expect(reloads).toBe(0);
});

test('with server-a back and server-b killed under a half-filled form, the connection comes back and the form keeps what was typed', async () => {
  await example.servers[0].start();
  await page.getByRole('link', { name: 'Create instance' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Create instance' })).toBeVisible();
  await page.getByLabel('Name').fill('after-failover');
  await page.getByLabel('Description').fill('Typed while a server died');
  await expect(page.getByText('This name is available')).toBeVisible();

  // The connection is on server-b: server-a was down when it was last made.
  const before = await connectionStateCount();
  await example.servers[1].kill('SIGKILL');
  await expect.poll(() => connectionStatesSince(before), { timeout: 20_000 }).toBe(reconnected);
  await expectLive();
  await expect(page.getByLabel('Name')).toHaveValue('after-failover');
  await expect(page.getByLabel('Description')).toHaveValue('Typed while a server died');
  expect(reloads).toBe(0);
  await example.servers[1].start();
});

test('after both reconnects, the instance created from that form reaches Running live, and the list shows it', async () => {
  test.setTimeout(150_000);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(/\/instances\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: 'after-failover' })).toBeVisible();
  // An agent makes it; the instance page does not poll: each status arrives over the hub.
  const state = page.getByRole('group', { name: 'State' });
  await expect(state.getByText('Not initialized')).toBeVisible();
  await expect(state.getByText('Running', { exact: true })).toBeVisible({ timeout: 90_000 });

  await browseHostsAndInstances();
  await expect(page.getByRole('row', { name: /after-failover/ })).toContainText('Running');
  await expectLive();
  expect(reloads).toBe(0);
});
