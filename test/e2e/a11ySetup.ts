import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { baseURL, change, json, statusOf } from './api';

// What the accessibility specs share: the pg instance whose screens they check, and when a screen
// is ready to be judged.

export const a11yInstanceName = 'a11y-e2e';

/**
 * The id of the running `a11y-e2e` pg instance, created on first use and started if stopped. A pg
 * instance because the instance screens (Databases & roles, configuration) need a real one; it is
 * found by name, so a worker restarted after a failure, or the next spec, reuses it.
 */
export async function runningA11yInstance(request: APIRequestContext): Promise<string> {
  const listed = (await (await request.get(`${baseURL()}/instances?search=${a11yInstanceName}`, { headers: json })).json()) as { items: { id: string; name: string }[] };
  const instanceId = listed.items.find((i) => i.name === a11yInstanceName)?.id ?? (await createA11yInstance(request));
  await expect.poll(() => statusOf(request, instanceId), { timeout: 90_000 }).toMatch(/^(running|stopped)$/);
  if ((await statusOf(request, instanceId)) === 'stopped') await request.post(`${baseURL()}/instances/${instanceId}/start`, { headers: change(), data: {} });
  await expect.poll(() => statusOf(request, instanceId), { timeout: 90_000 }).toBe('running');
  return instanceId;
}

async function createA11yInstance(request: APIRequestContext): Promise<string> {
  const created = await request.post(`${baseURL()}/instances`, { headers: change(), data: { name: a11yInstanceName, type: 'pg', description: 'Checked for accessibility' } });
  expect(created.status()).toBe(202);
  return ((await created.json()) as { id: string }).id;
}

/** Stopped, not deleted, so that the next user starts it again by name; the run's teardown stops every engine anyway. */
export async function stopA11yInstance(request: APIRequestContext, instanceId: string) {
  await request.post(`${baseURL()}/instances/${instanceId}/stop`, { headers: change(), data: {} });
}

/** Waits until the screen shows its data: its heading is there and no spinner or loading status is left. */
export async function loaded(page: Page, heading: string | RegExp) {
  await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
  await expect(page.locator('.chakra-spinner, .chakra-skeleton, [aria-busy="true"]:not([role="group"])')).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByRole('status').filter({ hasText: /Loading/i })).toHaveCount(0);
  // The theme's stylesheet is applied (its variables reach the page) before colours are judged.
  await expect.poll(() => page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--w-bg').trim())).not.toBe('');
}

/** The instance page has loaded its Databases & roles and drawn its monitoring charts. */
export async function instancePageReady(page: Page) {
  const databases = page.getByRole('region', { name: 'Databases & roles' });
  await expect(databases.getByRole('table', { name: 'Databases' })).toBeVisible();
  await expect(databases.getByRole('button', { name: 'New role' })).toBeEnabled();
  // The charts are drawn from the samples taken since the instance started.
  await expect(page.getByRole('region', { name: 'Monitoring' }).getByRole('figure').first()).toBeVisible({ timeout: 30_000 });
}
