import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
import { admin, regular } from './globalSetup';
import { signIn } from './signIn';
import { axeViolations } from './axe';
import { baseURL, change, json, statusOf } from './api';
import { instancePageReady, loaded, runningA11yInstance, stopA11yInstance } from './a11ySetup';

// Every screen of SPEC §2 checked with axe-core (WCAG 2.1 A and AA) in the default theme and a dark
// one, against the real server, plus keyboard use of the instances list and an instance page. A
// failure lists each serious or critical violation with the elements it names, so it says what to fix.

const themes = ['aura-light-green', 'aura-dark-green'] as const;

// About twenty screens and dialogs with an axe run each: two minutes on a slow machine, where both
// themes' runs took 1.9–2.0 minutes; five leave room for a busy one.
test.setTimeout(300_000);

/** What the screens need: one running pg instance, a group and a user to open. */
interface World {
  instanceId: string;
  groupId: string;
  userId: string;
}
let world: World;

/** A signed-in browser page in `theme` (chosen the way the console keeps it: localStorage `theme`). */
async function openAs(browser: Browser, theme: string): Promise<Page> {
  const context = await browser.newContext();
  await context.addInitScript((name) => window.localStorage.setItem('theme', name), theme);
  const page = await context.newPage();
  await page.goto(`${baseURL()}/login`);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/instances$/);
  await expect(page.locator('link#theme-link')).toHaveAttribute('href', new RegExp(`/${theme}\\.css$`));
  return page;
}

interface Found {
  screen: string;
  lines: string[];
}

/** Runs axe on the page and returns the serious and critical violations, one line per element. */
async function violations(page: Page, screen: string): Promise<Found> {
  return { screen, lines: (await axeViolations(page)).map((line) => `  ${line}`) };
}

function report(found: Found[]): string {
  return found
    .filter((f) => f.lines.length > 0)
    .map((f) => `${f.screen}:\n${f.lines.join('\n')}`)
    .join('\n');
}

test.beforeAll(async ({ browser }) => {
  const page = await openAs(browser, themes[0]);
  const request = page.request;
  // A failed test restarts the worker and this hook with it: what exists already is reused.
  const instanceId = await runningA11yInstance(request);
  const groups = (await (await request.get(`${baseURL()}/groups?search=a11y-group`, { headers: json })).json()) as { items: { id: string; name: string }[] };
  let groupId = groups.items.find((g) => g.name === 'a11y-group')?.id;
  if (!groupId) {
    const group = await request.post(`${baseURL()}/groups`, { headers: change(), data: { name: 'a11y-group', description: 'Checked for accessibility' } });
    expect(group.status()).toBe(201);
    groupId = ((await group.json()) as { id: string }).id;
  }
  const users = (await (await request.get(`${baseURL()}/admin/users?search=${encodeURIComponent(regular.email)}`, { headers: json })).json()) as { items: { id: string; email: string }[] };
  const userId = users.items.find((u) => u.email === regular.email)!.id;
  world = { instanceId, groupId, userId };
  await page.context().close();
});

test.afterAll(async ({ browser }) => {
  if (!world) return;
  const page = await openAs(browser, themes[0]);
  await stopA11yInstance(page.request, world.instanceId);
  await page.context().close();
});

/** Each screen: where it is and the heading that says it has loaded; `ready` waits for more where needed. */
function screens(w: World): { name: string; path: string; heading: string | RegExp; ready?: (page: Page) => Promise<void> }[] {
  const instance = `/instances/${w.instanceId}`;
  return [
    { name: 'instances', path: '/instances', heading: 'Instances', ready: (page) => expect(page.getByRole('row', { name: /a11y-e2e/ })).toBeVisible() },
    {
      name: 'instance detail',
      path: instance,
      heading: 'a11y-e2e',
      // The monitoring charts are checked too.
      ready: instancePageReady,
    },
    { name: 'create instance', path: '/instances/create', heading: 'Create instance' },
    { name: 'edit configuration', path: `${instance}/configuration`, heading: /a11y-e2e|Configuration/, ready: (page) => expect(page.getByLabel('Search parameters')).toBeVisible() },
    { name: 'instance script', path: `${instance}/script`, heading: /a11y-e2e|Script/ },
    { name: 'database backups', path: `${instance}/backups/database`, heading: 'Database backups' },
    { name: 'file backups', path: `${instance}/backups/files`, heading: 'File backups' },
    { name: 'instance creation graph', path: '/graphs/instance-creation', heading: /Instance creation|Instances created/ },
    { name: 'instances update', path: '/instances-update', heading: /update/i },
    { name: 'groups', path: '/groups', heading: 'Groups', ready: (page) => expect(page.getByRole('row', { name: /a11y-group/ })).toBeVisible() },
    { name: 'group detail', path: `/groups/${w.groupId}`, heading: 'a11y-group' },
    { name: 'backups', path: '/backups', heading: 'Backups' },
    { name: 'clients', path: '/clients', heading: 'Clients' },
    { name: 'profile', path: '/profile', heading: 'Profile' },
    { name: 'admin users', path: '/admin/users', heading: 'Users', ready: (page) => expect(page.getByRole('row', { name: new RegExp(regular.email) })).toBeVisible() },
    { name: 'admin user', path: `/admin/users/${w.userId}`, heading: regular.email },
    { name: 'admin audit', path: '/admin/audit', heading: 'Audit', ready: (page) => expect(page.getByRole('table', { name: 'Audit entries' })).toBeVisible() },
    { name: 'admin hosts', path: '/admin/hosts', heading: 'Hosts', ready: (page) => expect(page.getByRole('table', { name: 'Hosts' })).toBeVisible() },
    { name: 'debug', path: '/debug', heading: 'Debug' },
  ];
}

for (const theme of themes) {
  test(`every screen has no serious or critical axe violation in ${theme}`, async ({ browser }) => {
    const found: Found[] = [];

    // The sign-in page, signed out.
    const context = await browser.newContext();
    await context.addInitScript((name) => window.localStorage.setItem('theme', name), theme);
    const login = await context.newPage();
    await login.goto(`${baseURL()}/login`);
    await expect(login.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expect(login.locator('link#theme-link')).toHaveAttribute('href', new RegExp(`/${theme}\\.css$`));
    await expect.poll(() => login.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe(theme.includes('dark') ? 'dark' : 'light');
    found.push(await violations(login, 'login'));
    await context.close();

    const page = await openAs(browser, theme);
    for (const screen of screens(world)) {
      await page.goto(baseURL() + screen.path);
      await loaded(page, screen.heading);
      await screen.ready?.(page);
      await loaded(page, screen.heading);
      found.push(await violations(page, screen.name));
    }

    // The main dialogs: a delete confirmation (the global modal) and a form dialog.
    await page.goto(`${baseURL()}/instances/${world.instanceId}`);
    await loaded(page, 'a11y-e2e');
    await page.getByRole('group', { name: 'Operations' }).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog');
    await expect(confirm).toBeVisible();
    found.push(await violations(page, 'delete confirmation dialog'));
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(confirm).toBeHidden();

    await page.getByRole('region', { name: 'Databases & roles' }).getByRole('button', { name: 'New role' }).click();
    const form = page.getByRole('dialog');
    await expect(form).toBeVisible();
    found.push(await violations(page, 'new role dialog'));
    await page.keyboard.press('Escape');
    await expect(form).toBeHidden();

    await page.goto(`${baseURL()}/groups`);
    await loaded(page, 'Groups');
    await page.getByRole('button', { name: 'Create group' }).click();
    const createGroup = page.getByRole('dialog', { name: 'Create group' });
    await expect(createGroup).toBeVisible();
    found.push(await violations(page, 'create group dialog'));
    await page.keyboard.press('Escape');
    await expect(createGroup).toBeHidden();

    await page.context().close();
    expect(report(found), 'serious or critical axe violations').toBe('');
  });
}

test('the logs screen has no serious or critical axe violation in either theme', async ({ browser }) => {
  const found: Found[] = [];
  for (const theme of themes) {
    const page = await openAs(browser, theme);
    await page.goto(`${baseURL()}/logs`);
    await loaded(page, 'Logs');
    await expect(page.getByRole('table', { name: 'Log entries' })).toBeVisible();
    found.push(await violations(page, `logs (${theme})`));
    await page.context().close();
  }
  expect(report(found), 'serious or critical axe violations').toBe('');
});

test('an open dropdown has no serious or critical axe violation and works by keyboard', async ({ browser }) => {
  const found: Found[] = [];
  for (const theme of themes) {
    const page = await openAs(browser, theme);
    await loaded(page, 'Instances');
    // A short list: type-ahead on the button, and Tab chooses and moves on to the next field.
    const status = page.getByRole('combobox', { name: 'Status' });
    await status.focus();
    await page.keyboard.press('r');
    await expect(page.getByRole('listbox', { name: 'Status' })).toBeVisible();
    found.push(await violations(page, `open Status dropdown (${theme})`));
    await page.keyboard.press('Tab');
    await expect(page).toHaveURL(/status=running/);
    await expect(page.getByRole('combobox', { name: 'Health' })).toBeFocused();
    // A long list: option groups under headings and a filter box; Escape returns to the button.
    const themeBox = page.getByRole('combobox', { name: 'Theme' });
    await themeBox.click();
    await expect(page.getByRole('textbox', { name: 'Filter options' })).toBeFocused();
    found.push(await violations(page, `open Theme dropdown (${theme})`));
    await page.keyboard.press('Escape');
    await expect(themeBox).toBeFocused();
    await expect(themeBox).toHaveAttribute('aria-expanded', 'false');
    // Typing on the button starts the filter; Tab chooses the active option and moves past the field.
    await page.keyboard.press('l');
    await page.keyboard.type('ara dark indigo');
    await page.keyboard.press('Tab');
    await expect(themeBox).toHaveText('Lara Dark Indigo');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role') ?? document.activeElement?.tagName)).not.toMatch(/^(BODY|combobox)$/);
    await page.context().close();
  }
  expect(report(found), 'serious or critical axe violations').toBe('');
});

/** The focused element shows a ring: an outline or a box-shadow, not nothing. */
async function focusIsVisible(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return false;
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    return outline || (style.boxShadow !== 'none' && style.boxShadow !== '');
  });
}

/** Tabs forward until `target` has focus, checking on the way that every focused element shows it. */
async function tabTo(page: Page, target: Locator, limit = 60) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const described = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"` : 'nothing';
    });
    expect(await focusIsVisible(page), `focus ring on ${described}`).toBe(true);
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`${String(target)} was not reached in ${limit} Tab presses`);
}

test('the instances list and an instance page work by keyboard alone, with a visible focus', async ({ browser }) => {
  const page = await openAs(browser, themes[0]);
  await loaded(page, 'Instances');
  await expect(page.getByRole('row', { name: /a11y-e2e/ })).toBeVisible();

  // The list: its primary action by Tab and Enter.
  const create = page.getByRole('link', { name: 'Create instance' });
  await tabTo(page, create);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/instances\/create$/);
  await page.goBack();
  await loaded(page, 'Instances');

  // An instance's link in the list by Tab and Enter.
  const instanceLink = page.getByRole('link', { name: 'a11y-e2e', exact: true });
  await tabTo(page, instanceLink);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/instances/${world.instanceId}$`));
  await loaded(page, 'a11y-e2e');

  // The instance page: an operation by Tab and Space opens its confirmation; Escape leaves it untouched.
  const restart = page.getByRole('group', { name: 'Operations' }).getByRole('button', { name: 'Restart', exact: true });
  await tabTo(page, restart);
  await page.keyboard.press('Space');
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  // Focus moves into the dialog, and its buttons take Tab with a visible ring too.
  await expect.poll(() => dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  await tabTo(page, dialog.getByRole('button', { name: 'Cancel' }), 6);
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  expect(await statusOf(page.request, world.instanceId)).toBe('running');

  // Databases & roles: "New role" opens its form by Enter, the first field has focus, Escape closes it.
  const newRole = page.getByRole('region', { name: 'Databases & roles' }).getByRole('button', { name: 'New role' });
  await expect(newRole).toBeEnabled();
  await tabTo(page, newRole);
  await page.keyboard.press('Enter');
  const form = page.getByRole('dialog');
  await expect(form).toBeVisible();
  await expect.poll(() => form.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  await page.keyboard.press('Escape');
  await expect(form).toBeHidden();
  await page.context().close();
});
