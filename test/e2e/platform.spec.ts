import { expect, test, type Page } from '@playwright/test';
import { admin, lockable, regular } from './globalSetup';
import { signIn } from './signIn';
import { pickOption } from './pickOption';

const baseURL = () => process.env.WARDEN_E2E_URL!;


const nav = (page: Page) => page.getByRole('navigation');

test.use({ baseURL: undefined });

test('an admin signs in, sees the admin entries, keeps a chosen theme across a reload and signs out', async ({ page }) => {
  await page.goto(baseURL() + '/');
  await expect(page).toHaveURL(/\/login/);
  await signIn(page, admin);

  await expect(page).toHaveURL(/\/instances$/);
  await expect(nav(page).getByRole('link', { name: 'Users' })).toBeVisible();
  await expect(nav(page).getByRole('link', { name: 'Debug' })).toBeVisible();

  const themeLink = page.locator('link#theme-link');
  await expect(themeLink).toHaveAttribute('href', /aura-light-green\.css$/);
  await pickOption(page.getByRole('combobox', { name: 'Theme' }), 'Lara Dark Indigo');
  await expect(themeLink).toHaveAttribute('href', /lara-dark-indigo\.css$/);
  // The stylesheet really loads and changes the page's variables.
  await expect
    .poll(() => page.evaluate(() => getComputedStyle(document.documentElement).colorScheme))
    .toBe('dark');

  await page.reload();
  await expect(page.locator('link#theme-link')).toHaveAttribute('href', /lara-dark-indigo\.css$/);
  await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveText('Lara Dark Indigo');

  await nav(page).getByRole('link', { name: 'Users' }).click();
  await expect(page).toHaveURL(/\/admin\/users$/);

  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login/);
  // The session is gone on the server too: a reload stays on the sign-in page.
  await page.goto(baseURL() + '/instances');
  await expect(page).toHaveURL(/\/login/);
});

test('a regular user sees no admin entries and cannot reach /admin/users', async ({ page }) => {
  await page.goto(baseURL() + '/login');
  await signIn(page, regular);
  await expect(page).toHaveURL(/\/instances$/);
  await expect(nav(page).getByRole('link', { name: 'Groups' })).toBeVisible();
  await expect(nav(page).getByRole('link', { name: 'Users' })).toHaveCount(0);
  await expect(nav(page).getByRole('link', { name: 'Debug' })).toHaveCount(0);

  // A first load of a forbidden route lands on /instances.
  await page.goto(baseURL() + '/admin/users');
  await expect(page).toHaveURL(/\/instances$/);

  // A forbidden in-app navigation is cancelled: the user stays where they were.
  await nav(page).getByRole('link', { name: 'Groups' }).click();
  await expect(page).toHaveURL(/\/groups$/);
  await page.evaluate(() => {
    window.history.pushState({}, '', '/admin/users');
    window.dispatchEvent(new PopStateEvent('popstate'));
  });
  await expect(page).toHaveURL(/\/groups$/);
  await expect(page.getByRole('heading', { name: 'Users' })).toHaveCount(0);
});

test('returnUrl brings a signed-out user back to the page they asked for', async ({ page }) => {
  await page.goto(baseURL() + '/groups?page=2');
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fgroups%3Fpage%3D2$/);
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/groups\?page=2$/);
});

test('wrong credentials and a lockout read alike on the sign-in page', async ({ page }) => {
  await page.goto(baseURL() + '/login');
  const victim = { email: lockable.email, password: 'not-the-password' };
  await signIn(page, victim);
  await expect(page.getByText('Wrong e-mail or password.')).toBeVisible();
  // Five failures lock the account for this client; then even the right password is refused, with
  // the same words as a wrong one, so a guesser cannot tell a locked account from a wrong password.
  for (let i = 0; i < 5; i++) {
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  }
  await signIn(page, lockable);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  await expect(page.getByText('Wrong e-mail or password.')).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
});
