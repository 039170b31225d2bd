import { expect, test, type Page } from '@playwright/test';
import { totpCode } from '../../server/auth/totp';
import { admin } from './globalSetup';
import { signIn } from './signIn';

const url = () => process.env.WARDEN_E2E_URL!;
const newcomer = { email: 'newcomer@e2e.test', password: 'N3wcomer!pass' };

async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login/);
}

/** A code for the current 30-second step that differs from the last one used (codes may not be reused in a step). */
async function freshCode(secret: string, lastUsed?: string) {
  let code = totpCode(secret, new Date());
  while (code === lastUsed) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    code = totpCode(secret, new Date());
  }
  return code;
}

test('an admin creates a user and a group; the user enables 2FA and signs in with a code, then a recovery code', async ({ page }) => {
  test.setTimeout(120_000);

  // The admin creates a regular user …
  await page.goto(`${url()}/login`);
  await signIn(page, admin);
  await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
  await page.getByRole('button', { name: 'Create user' }).click();
  const createUser = page.getByRole('dialog');
  await createUser.getByLabel('E-mail').fill(newcomer.email);
  await createUser.getByLabel('Initial password').fill(newcomer.password);
  await createUser.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByRole('link', { name: newcomer.email })).toBeVisible();

  // … and a group, and adds the user to it.
  await page.getByRole('navigation').getByRole('link', { name: 'Groups' }).click();
  await page.getByRole('button', { name: 'Create group' }).click();
  const createGroup = page.getByRole('dialog');
  await createGroup.getByLabel('Name').fill('night-shift');
  await createGroup.getByRole('button', { name: 'Create', exact: true }).click();
  // A new group opens at once.
  await expect(page.getByRole('heading', { name: 'night-shift' })).toBeVisible();
  await page.getByRole('button', { name: 'Add members' }).click();
  const addMembers = page.getByRole('dialog');
  await addMembers.getByLabel('Search users').fill('newcomer');
  // The checkbox's own input is visually hidden; a person clicks the row's label.
  await addMembers.getByText(newcomer.email).click();
  await expect(addMembers.getByRole('checkbox', { name: newcomer.email })).toBeChecked();
  await addMembers.getByRole('button', { name: 'Add selected' }).click();
  await expect(page.getByRole('table', { name: 'Members' }).getByText(newcomer.email)).toBeVisible();
  await signOut(page);

  // The user signs in and enables two-factor sign-in from the profile.
  await signIn(page, newcomer);
  await page.getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByRole('list', { name: 'Your groups' }).getByText('night-shift')).toBeVisible();
  const enrolment = page.waitForResponse((res) => res.url().endsWith('/auth/manage/2fa') && res.request().method() === 'POST');
  await page.getByRole('button', { name: 'Enable two-factor' }).click();
  const { sharedKey } = await (await enrolment).json();
  await expect(page.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  let lastCode = await freshCode(sharedKey);
  await page.getByLabel('Authentication code').fill(lastCode);
  await page.getByRole('button', { name: 'Verify' }).click();
  const codesList = page.getByRole('list', { name: 'Recovery codes' });
  await expect(codesList.getByRole('listitem')).toHaveCount(10);
  const recoveryCodes = await codesList.getByRole('listitem').allInnerTexts();
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await signOut(page);

  // Back in with a code from the authenticator …
  await signIn(page, newcomer);
  await expect(page.getByLabel('Authentication code')).toBeVisible();
  lastCode = await freshCode(sharedKey, lastCode);
  await page.getByLabel('Authentication code').fill(lastCode);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Signing out from the profile left it as the way back.
  await expect(page).toHaveURL(/\/profile$/);
  await signOut(page);

  // … and with a recovery code instead, which works once.
  await signIn(page, newcomer);
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await page.getByLabel('Recovery code').fill(recoveryCodes[0].trim());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByText(/Recovery codes left: 9/)).toBeVisible();
});
