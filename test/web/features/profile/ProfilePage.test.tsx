import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { Profile } from '../../../../contracts/auth';
import { groupedKey, otpauthUri } from '../../../../src/features/profile/TwoFactorSection';
import { admin } from '../../fixtures';
import { accountServer, aProfile, currentPassword, goodCode, sharedKey } from '../../handlers/accountHandlers';
import { meHandler } from '../../handlers/authHandlers';
import { instanceScreensAtRest } from '../../handlers/instancesHandlers';
import { validationProblem } from '../../handlers/pages';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

beforeAll(() => import('../../../../src/features/profile/ProfilePage'), 30_000);

const server = setupMsw();

function openProfile(profile: Partial<Profile> = {}) {
  const account = accountServer(aProfile(profile));
  server.use(meHandler(admin), ...account.handlers, ...instanceScreensAtRest());
  const user = userEvent.setup();
  const app = renderApp('/profile');
  return { ...app, account, user };
}

const section = async (name: string) => within(await screen.findByRole('region', { name }));

describe('ProfilePage', () => {
  it('shows the account, whether the address is confirmed, and the user’s groups', async () => {
    openProfile({
      emailConfirmed: false,
      groups: [
        { id: 'g-1', name: 'payments' },
        { id: 'g-2', name: 'search' },
      ],
    });
    const email = await section('E-mail');
    expect(email.getByText('ada@example.com')).toBeInTheDocument();
    expect(email.getByText('Not confirmed')).toBeInTheDocument();
    expect((await section('Account')).getByText('Admin')).toBeInTheDocument();
    const groups = within(screen.getByRole('list', { name: 'Your groups' }));
    expect(groups.getByRole('link', { name: 'payments' })).toHaveAttribute('href', '/groups/g-1');
    expect(groups.getByRole('link', { name: 'search' })).toHaveAttribute('href', '/groups/g-2');
  });

  it('reads the address and its confirmation through GET /auth/manage/info', async () => {
    openProfile({ emailConfirmed: false });
    server.use(http.get('/auth/manage/info', () => HttpResponse.json({ email: 'ada@confirmed.example', isEmailConfirmed: true })));
    const email = await section('E-mail');
    expect(await email.findByText('ada@confirmed.example')).toBeInTheDocument();
    expect(email.getByText('Confirmed')).toBeInTheDocument();
  });

  it('says so when the user is in no group', async () => {
    openProfile();
    expect(await screen.findByText('You are not a member of any group.')).toBeInTheDocument();
  });

  it('sends a new confirmation link on demand', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post('/auth/resendConfirmationEmail', async ({ request }) => {
        bodies.push(await request.json());
        return new HttpResponse(null, { status: 200 });
      }),
    );
    const { user } = openProfile({ emailConfirmed: false });
    await user.click(await screen.findByRole('button', { name: 'Resend confirmation e-mail' }));
    expect(await screen.findByText('We sent a new confirmation link to ada@example.com.')).toBeInTheDocument();
    expect(bodies).toEqual([{ email: 'ada@example.com' }]);
  });

  it('asks to confirm a new address before it takes it', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post('/auth/manage/info', async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ email: 'ada@example.com', isEmailConfirmed: true });
      }),
    );
    const { user } = openProfile();
    await user.type(await screen.findByLabelText('New e-mail'), 'ada@new.example');
    await user.click(screen.getByRole('button', { name: 'Change e-mail' }));
    expect(await screen.findByText(/We sent a confirmation link to ada@new.example/)).toBeInTheDocument();
    expect(bodies).toEqual([{ newEmail: 'ada@new.example' }]);
    expect(screen.getByLabelText('New e-mail')).toHaveValue('');
  });

  it('changes the password, saying beside the field when the current one is wrong', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post('/auth/manage/info', async ({ request }) => {
        const body = (await request.json()) as { oldPassword: string };
        bodies.push(body);
        return body.oldPassword === 'right'
          ? HttpResponse.json({ email: 'ada@example.com', isEmailConfirmed: true })
          : validationProblem({ PasswordMismatch: ['Incorrect password.'] });
      }),
    );
    const { user } = openProfile();
    const password = await section('Password');
    await user.type(password.getByLabelText('Current password'), 'wrong');
    await user.type(password.getByLabelText('New password'), 'N3w-secret');
    await user.type(password.getByLabelText('Confirm new password'), 'N3w-secret');
    await user.click(password.getByRole('button', { name: 'Change password' }));
    expect(await password.findByText('Incorrect password.')).toBeInTheDocument();
    expect(password.getByLabelText('Current password')).toHaveAttribute('aria-invalid', 'true');

    await user.clear(password.getByLabelText('Current password'));
    await user.type(password.getByLabelText('Current password'), 'right');
    await user.click(password.getByRole('button', { name: 'Change password' }));
    expect(await password.findByText('Your password was changed.')).toBeInTheDocument();
    expect(password.getByLabelText('New password')).toHaveValue('');
    expect(bodies).toEqual([
      { oldPassword: 'wrong', newPassword: 'N3w-secret' },
      { oldPassword: 'right', newPassword: 'N3w-secret' },
    ]);
  });
});

describe('two-factor authentication', () => {
  it('puts the secret in the otpauth URI authenticator apps read, and groups the key in fours', () => {
    expect(otpauthUri('ada+ops@example.com', 'ABCD EFGH')).toBe(
      'otpauth://totp/Warden:ada%2Bops%40example.com?secret=ABCDEFGH&issuer=Warden&digits=6&period=30',
    );
    expect(groupedKey('JBSWY3DPEHPK3PXPJB')).toBe('JBSW Y3DP EHPK 3PXP JB');
  });

  it('enrols: a QR code drawn locally, the key, a code to verify; then the recovery codes, once', async () => {
    const { user, account, router } = openProfile();
    // user-event's clipboard stands in for the browser's; the environment's Blob cannot be read back.
    const copied = jest.spyOn(navigator.clipboard, 'writeText');
    const twoFactor = await section('Two-factor authentication');
    // Nothing is asked of the 2FA endpoint until the person starts.
    expect(account.twoFactorBodies).toEqual([]);
    await user.click(twoFactor.getByRole('button', { name: 'Enable two-factor' }));

    const qr = await twoFactor.findByRole('img', { name: 'QR code for your authenticator app' });
    expect(qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(decodeURIComponent(qr.getAttribute('src')!)).toContain('<svg');
    expect(twoFactor.getByText(groupedKey(sharedKey))).toBeInTheDocument();
    await user.click(twoFactor.getByRole('button', { name: 'Copy key' }));
    expect(copied).toHaveBeenLastCalledWith(sharedKey);

    await user.type(twoFactor.getByLabelText('Authentication code'), '000000');
    await user.click(twoFactor.getByRole('button', { name: 'Verify' }));
    expect(await twoFactor.findByText(/The code is not valid/)).toBeInTheDocument();

    await user.clear(twoFactor.getByLabelText('Authentication code'));
    await user.type(twoFactor.getByLabelText('Authentication code'), goodCode);
    await user.click(twoFactor.getByRole('button', { name: 'Verify' }));

    const codes = await twoFactor.findByRole('list', { name: 'Recovery codes' });
    expect(within(codes).getAllByRole('listitem')).toHaveLength(10);
    expect(twoFactor.getByText('Save your recovery codes now')).toBeInTheDocument();
    const download = twoFactor.getByRole('link', { name: 'Download' });
    expect(download).toHaveAttribute('download', 'warden-recovery-codes.txt');
    expect(decodeURIComponent(download.getAttribute('href')!)).toContain('code-0-abcd-1\ncode-1-abcd-1');
    await user.click(twoFactor.getByRole('button', { name: 'Copy codes' }));
    expect(copied.mock.lastCall?.[0].split('\n')).toHaveLength(10);
    expect(account.twoFactorBodies.slice(0, 3)).toEqual([
      {},
      { enable: true, twoFactorCode: '000000' },
      { enable: true, twoFactorCode: goodCode },
    ]);

    // Leaving the profile forgets them: they are not shown again.
    await act(() => router.navigate('/instances'));
    await act(() => router.navigate('/profile'));
    const again = await section('Two-factor authentication');
    expect(await again.findByText(/Recovery codes left/)).toHaveTextContent('Recovery codes left: 10');
    expect(again.queryByRole('list', { name: 'Recovery codes' })).not.toBeInTheDocument();
  });

  it('hides the codes once the person says they saved them', async () => {
    const { user } = openProfile();
    const twoFactor = await section('Two-factor authentication');
    await user.click(twoFactor.getByRole('button', { name: 'Enable two-factor' }));
    await user.type(await twoFactor.findByLabelText('Authentication code'), goodCode);
    await user.click(twoFactor.getByRole('button', { name: 'Verify' }));
    await user.click(await twoFactor.findByRole('button', { name: 'I have saved them' }));
    expect(twoFactor.queryByRole('list', { name: 'Recovery codes' })).not.toBeInTheDocument();
    expect(await twoFactor.findByRole('button', { name: 'Disable two-factor' })).toBeInTheDocument();
  });

  // The server wants the password (or a current code) for these: the dialog asks for it.
  it('resets the recovery codes once the password is given, and shows the new ones', async () => {
    const { user, account } = openProfile({ twoFactorEnabled: true });
    const twoFactor = await section('Two-factor authentication');
    expect(await twoFactor.findByText(/Recovery codes left/)).toHaveTextContent('Recovery codes left: 10');

    await user.click(twoFactor.getByRole('button', { name: 'Reset recovery codes' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reset recovery codes?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(account.twoFactorBodies).toEqual([{}]);

    await user.click(twoFactor.getByRole('button', { name: 'Reset recovery codes' }));
    const asked = within(await screen.findByRole('dialog'));
    expect(asked.getByRole('button', { name: 'Reset codes' })).toBeDisabled();
    await user.type(asked.getByLabelText('Current password'), currentPassword);
    await user.click(asked.getByRole('button', { name: 'Reset codes' }));
    const codes = await twoFactor.findByRole('list', { name: 'Recovery codes' });
    expect(within(codes).getByText('code-0-abcd-1')).toBeInTheDocument();
    expect(account.twoFactorBodies.slice(0, 2)).toEqual([{}, { resetRecoveryCodes: true, currentPassword }]);
  });

  it('disables two-factor once the password is given, asking again beside the field when it is wrong', async () => {
    const { user, account } = openProfile({ twoFactorEnabled: true });
    const twoFactor = await section('Two-factor authentication');
    await user.click(await twoFactor.findByRole('button', { name: 'Disable two-factor' }));
    let dialog = within(await screen.findByRole('dialog', { name: 'Disable two-factor authentication?' }));
    await user.type(dialog.getByLabelText('Current password'), 'not-it');
    await user.click(dialog.getByRole('button', { name: 'Disable' }));

    dialog = within(await screen.findByRole('dialog', { name: 'Disable two-factor authentication?' }));
    expect(await dialog.findByText('Your current password is not correct.')).toBeInTheDocument();
    expect(dialog.getByLabelText('Current password')).toHaveAttribute('aria-invalid', 'true');
    expect(twoFactor.queryByRole('button', { name: 'Enable two-factor' })).not.toBeInTheDocument();

    await user.type(dialog.getByLabelText('Current password'), currentPassword);
    await user.click(dialog.getByRole('button', { name: 'Disable' }));
    expect(await twoFactor.findByRole('button', { name: 'Enable two-factor' })).toBeInTheDocument();
    expect(account.twoFactorBodies.filter((body) => body.enable === false)).toEqual([
      { enable: false, currentPassword: 'not-it' },
      { enable: false, currentPassword },
    ]);
  });

  it('takes a code from the authenticator app instead of the password', async () => {
    const { user, account } = openProfile({ twoFactorEnabled: true });
    const twoFactor = await section('Two-factor authentication');
    await user.click(await twoFactor.findByRole('button', { name: 'Disable two-factor' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Disable two-factor authentication?' }));
    await user.click(dialog.getByRole('button', { name: 'Use a code from your authenticator app instead' }));
    await user.type(dialog.getByLabelText('Authentication code'), goodCode);
    await user.click(dialog.getByRole('button', { name: 'Disable' }));

    expect(await twoFactor.findByRole('button', { name: 'Enable two-factor' })).toBeInTheDocument();
    expect(account.twoFactorBodies).toContainEqual({ enable: false, twoFactorCode: goodCode });
  });
});
