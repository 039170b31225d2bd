import { expect, test, type Page } from '@playwright/test';
import { themes, themeStorageKey, type Theme } from '../../src/theme/catalogue';
import { admin } from './globalSetup';
import { signIn } from './signIn';
import { axeViolations } from './axe';
import { baseURL } from './api';
import { pickOption } from './pickOption';
import { a11yInstanceName, instancePageReady, loaded, runningA11yInstance, stopA11yInstance } from './a11ySetup';

// Every shipped theme checked with axe-core (WCAG 2.1 A and AA) on the sign-in page, the instances
// list, an instance page and the logs. Each screen is loaded once and the theme is switched in
// place, as the console does it, rather than a browser per theme. One report at the end names each
// theme, screen and serious or critical violation.

// About three minutes on two cores, six to seven on a slow machine, and over ten in a whole run on
// one; fifteen leave room for a busy one.
test.setTimeout(900_000);
// A trace of some three hundred axe runs would be large and slow each of them; a failure's report says what to fix.
test.use({ trace: 'off' });

/** Waits until the page wears `theme`: its stylesheet is the one loaded and its variables reach the page. */
async function wears(page: Page, theme: Theme) {
  const worn = () =>
    page.evaluate(() => {
      const href = (document.getElementById('theme-link') as HTMLLinkElement | null)?.sheet?.href ?? '';
      const root = document.documentElement;
      const style = getComputedStyle(root);
      return {
        stylesheet: href.slice(href.lastIndexOf('/') + 1),
        variables: style.getPropertyValue('--w-bg').trim() !== '',
        colorScheme: style.colorScheme,
        dark: root.classList.contains('dark'),
      };
    });
  const dark = theme.palette.dark;
  await expect.poll(worn).toEqual({ stylesheet: `${theme.name}.css`, variables: true, colorScheme: dark ? 'dark' : 'light', dark });
}

/** One screen checked in every theme: the violations, one line per element, of each theme that has any. */
interface Checked {
  screen: string;
  byTheme: Map<string, string[]>;
}

/** Runs axe on the page as it stands in every theme, switched by `wear` before each run. */
async function inEveryTheme(page: Page, screen: string, wear: (theme: Theme) => Promise<void>): Promise<Checked> {
  const byTheme = new Map<string, string[]>();
  for (const theme of themes) {
    await wear(theme);
    const lines = await axeViolations(page);
    if (lines.length > 0) byTheme.set(theme.name, lines);
  }
  return { screen, byTheme };
}

/** theme → screen → violations, for the themes that have any. */
function report(checked: Checked[]): string {
  const failing = themes.filter((t) => checked.some((c) => c.byTheme.has(t.name))).map((t) => t.name);
  if (failing.length === 0) return '';
  const details = failing.flatMap((name) => [
    `${name}:`,
    ...checked.filter((c) => c.byTheme.has(name)).flatMap((c) => [`  ${c.screen}:`, ...c.byTheme.get(name)!.map((line) => `    ${line}`)]),
  ]);
  return [`${failing.length} of ${themes.length} themes fail: ${failing.join(', ')}`, ...details].join('\n');
}

/** The sign-in page, signed out, has no selector: the stored choice is applied as the page loads. */
async function signInPage(page: Page): Promise<Checked> {
  await page.goto(`${baseURL()}/login`);
  return inEveryTheme(page, 'sign-in', async (theme) => {
    await page.evaluate(([key, name]) => window.localStorage.setItem(key, name), [themeStorageKey, theme.name]);
    await page.reload();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await wears(page, theme);
  });
}

/** A signed-in screen: where it is, and what shows it has loaded its data. */
interface Screen {
  name: string;
  path: string;
  ready: (page: Page) => Promise<void>;
}

const signedInScreens = (instanceId: string): Screen[] => [
  {
    name: 'instances',
    path: '/instances',
    ready: async (page) => {
      await loaded(page, 'Instances');
      await expect(page.getByRole('row', { name: new RegExp(a11yInstanceName) })).toBeVisible();
    },
  },
  {
    name: 'instance page',
    path: `/instances/${instanceId}`,
    ready: async (page) => {
      await loaded(page, a11yInstanceName);
      await instancePageReady(page);
    },
  },
  {
    name: 'logs',
    path: '/logs',
    ready: async (page) => {
      await loaded(page, 'Logs');
      await expect(page.getByRole('table', { name: 'Log entries' })).toBeVisible();
    },
  },
];

/** A signed-in screen, loaded once; the theme is switched with the sidebar's selector, as an operator does. */
async function signedInScreen(page: Page, screen: Screen): Promise<Checked> {
  await page.goto(baseURL() + screen.path);
  await screen.ready(page);
  const selector = page.getByRole('combobox', { name: 'Theme' });
  return inEveryTheme(page, screen.name, async (theme) => {
    await pickOption(selector, theme.label);
    await expect(selector).toHaveAttribute('aria-expanded', 'false');
    await wears(page, theme);
  });
}

test('every theme has no serious or critical axe violation on the sign-in page, the instances list, an instance page and the logs', async ({ page }) => {
  const checked = [await signInPage(page)];

  await signIn(page, admin);
  await expect(page).toHaveURL(/\/instances$/);
  const instanceId = await runningA11yInstance(page.request);
  for (const screen of signedInScreens(instanceId)) checked.push(await signedInScreen(page, screen));

  await stopA11yInstance(page.request, instanceId);
  expect(report(checked), 'serious or critical axe violations by theme and screen').toBe('');
});
