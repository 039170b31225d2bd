import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { User } from '../../../../contracts/users';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { validationProblem } from '../../handlers/pages';
import { aUser, rolesHandler, userHandler } from '../../handlers/usersHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { pickOption } from '../../pickOption';

beforeAll(() => import('../../../../src/features/admin/UserPage'), 30_000);

const server = setupMsw();

/** The user screen of `shown`, with a PUT that answers `answer` (by default: applies the change). */
function openUser(shown: User, answer?: (body: Partial<User>) => Response) {
  const users = new Map([[shown.id, shown]]);
  const puts: Partial<User>[] = [];
  server.use(
    meHandler(admin),
    rolesHandler(),
    userHandler(users),
    http.put('/admin/users/:id', async ({ params, request }) => {
      const body = (await request.json()) as Partial<User>;
      puts.push(body);
      if (answer) return answer(body);
      const updated = { ...users.get(String(params.id))!, ...body };
      users.set(updated.id, updated);
      return HttpResponse.json(updated);
    }),
  );
  const user = userEvent.setup();
  return { ...renderApp(`/admin/users/${shown.id}`), puts, user };
}

const bob = aUser({ id: 'u-bob', email: 'bob@example.com', role: 'admin', twoFactorEnabled: true });

async function confirm(user: ReturnType<typeof userEvent.setup>, title: string, button: string) {
  await user.click(within(await screen.findByRole('dialog', { name: title })).getByRole('button', { name: button }));
}

const facts = async () => within(await screen.findByRole('region', { name: 'Account' }));

describe('UserPage', () => {
  it('shows the user', async () => {
    openUser(bob);
    expect(await screen.findByRole('heading', { level: 1, name: 'bob@example.com' })).toBeInTheDocument();
    const account = await facts();
    expect(account.getByText('Admin')).toBeInTheDocument();
    expect(account.getByText('Enabled')).toBeInTheDocument();
    expect(account.getByText('Never')).toBeInTheDocument();
  });

  it('says when there is no such user', async () => {
    server.use(meHandler(admin), rolesHandler(), userHandler(new Map()));
    renderApp('/admin/users/u-gone');
    expect(await screen.findByText('User not found')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to users' })).toHaveAttribute('href', '/admin/users');
  });

  it('demotes an admin after a confirmation', async () => {
    const { user, puts } = openUser(bob);
    await pickOption(user, await screen.findByLabelText('Role'), 'Regular');
    await user.click(screen.getByRole('button', { name: 'Save role' }));
    await confirm(user, 'Demote bob@example.com?', 'Demote');
    expect(await (await facts()).findByText('Regular')).toBeInTheDocument();
    expect(puts).toEqual([{ role: 'regular' }]);
    expect(screen.getByRole('button', { name: 'Save role' })).toBeDisabled();
  });

  it('keeps the role when the demotion is not confirmed', async () => {
    const { user, puts } = openUser(bob);
    await pickOption(user, await screen.findByLabelText('Role'), 'Regular');
    await user.click(screen.getByRole('button', { name: 'Save role' }));
    await confirm(user, 'Demote bob@example.com?', 'Cancel');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(puts).toEqual([]);
  });

  it('promotes without asking', async () => {
    const { user, puts } = openUser(aUser({ id: 'u-una' }));
    await pickOption(user, await screen.findByLabelText('Role'), 'Admin');
    await user.click(screen.getByRole('button', { name: 'Save role' }));
    expect(await (await facts()).findByText('Admin')).toBeInTheDocument();
    expect(puts).toEqual([{ role: 'admin' }]);
  });

  it('refuses to demote the last admin through the one error path: a toast with the server’s reason', async () => {
    const reason = 'bob@example.com is the last enabled admin and cannot be demoted: make another user an admin first.';
    const { user, store } = openUser(bob, () => problem(409, 'Conflict', reason));
    await pickOption(user, await screen.findByLabelText('Role'), 'Regular');
    await user.click(screen.getByRole('button', { name: 'Save role' }));
    await confirm(user, 'Demote bob@example.com?', 'Demote');

    const toast = await screen.findByRole('alert');
    expect(toast).toHaveTextContent('Request failed');
    expect(toast).toHaveTextContent(reason);
    expect(store.getState().ui.toasts).toHaveLength(1);
    expect((await facts()).getByText('Admin')).toBeInTheDocument();
  });

  it('disables after a confirmation and says that the sessions were ended', async () => {
    const { user, puts } = openUser(bob);
    await user.click(await screen.findByRole('button', { name: 'Disable user' }));
    await confirm(user, 'Disable bob@example.com?', 'Disable');
    expect(await screen.findByText('All sessions of this user were ended.')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Enable user' })).toBeInTheDocument();
    expect((await facts()).getByText('Disabled')).toBeInTheDocument();
    expect(puts).toEqual([{ disabled: true }]);
  });

  it('enables again after a confirmation', async () => {
    const { user, puts } = openUser({ ...bob, disabled: true });
    await user.click(await screen.findByRole('button', { name: 'Enable user' }));
    await confirm(user, 'Enable bob@example.com?', 'Enable');
    expect(await screen.findByRole('button', { name: 'Disable user' })).toBeInTheDocument();
    expect(puts).toEqual([{ disabled: false }]);
  });

  it('resets the password in a dialog, showing the rules and how many sessions ended', async () => {
    const bodies: unknown[] = [];
    let answer = () => validationProblem({ PasswordRequiresDigit: ["Passwords must have at least one digit ('0'-'9')."] });
    server.use(
      http.post('/admin/users/change-password', async ({ request }) => {
        bodies.push(await request.json());
        return answer();
      }),
    );
    const { user } = openUser(bob);
    await user.click(await screen.findByRole('button', { name: 'Reset password' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Reset password' }));
    expect(dialog.getByRole('list', { name: 'Password rules' })).toBeInTheDocument();

    await user.type(dialog.getByLabelText('New password'), 'No-digits-here');
    await user.click(dialog.getByRole('button', { name: 'Set password' }));
    expect(await dialog.findByText("Passwords must have at least one digit ('0'-'9').")).toBeInTheDocument();

    answer = () => HttpResponse.json({ sessionsEnded: 3 });
    await user.type(dialog.getByLabelText('New password'), '7');
    await user.click(dialog.getByRole('button', { name: 'Set password' }));
    expect(await screen.findByText('3 sessions were ended.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(bodies).toEqual([
      { userId: 'u-bob', newPassword: 'No-digits-here' },
      { userId: 'u-bob', newPassword: 'No-digits-here7' },
    ]);
  });

  it('unlocks sign-in after a confirmation, saying how it went', async () => {
    const posts: string[] = [];
    server.use(
      http.post('/admin/users/:id/unlock', ({ params }) => {
        posts.push(String(params.id));
        return HttpResponse.json({ locksLifted: 1 });
      }),
    );
    const { user } = openUser(bob);
    await user.click(await screen.findByRole('button', { name: 'Unlock sign-in' }));
    await confirm(user, 'Unlock sign-in for bob@example.com?', 'Cancel');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(posts).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Unlock sign-in' }));
    await confirm(user, 'Unlock sign-in for bob@example.com?', 'Unlock');
    expect(await screen.findByText('bob@example.com can sign in again from everywhere.')).toBeInTheDocument();
    expect(posts).toEqual(['u-bob']);
  });

  it('shows a lockout in force with its time and failures beside Unlock, and unlocking clears it', async () => {
    const shown = { ...bob, lockedUntil: new Date(2099, 0, 2, 9, 5).toISOString(), failedSignIns: 1 };
    server.use(
      http.post('/admin/users/:id/unlock', () => {
        Object.assign(shown, { lockedUntil: null, failedSignIns: 0 });
        return HttpResponse.json({ locksLifted: 1 });
      }),
    );
    const { user } = openUser(shown);
    const account = await facts();
    expect(account.getByText(/Locked until/)).toHaveTextContent('Locked until 09:05 (1 failed sign-in)');
    expect(account.queryByText('Enabled')).not.toBeInTheDocument();

    await user.click(account.getByRole('button', { name: 'Unlock sign-in for bob@example.com' }));
    await confirm(user, 'Unlock sign-in for bob@example.com?', 'Unlock');

    expect(await account.findByText('Enabled')).toBeInTheDocument();
    expect(account.queryByText(/Locked until/)).not.toBeInTheDocument();
  });

  it('resets two-factor after a confirmation, and the page shows it off', async () => {
    const posts: string[] = [];
    const shown = { ...bob };
    const { user } = openUser(shown);
    server.use(
      http.post('/admin/users/:id/reset-2fa', ({ params }) => {
        posts.push(String(params.id));
        // The record the GET handler answers changes with it.
        shown.twoFactorEnabled = false;
        return HttpResponse.json(shown);
      }),
    );
    const account = await facts();
    expect(account.getByText('On')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Reset two-factor' }));
    await confirm(user, 'Reset two-factor for bob@example.com?', 'Reset two-factor');

    expect(await account.findByText('Off')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reset two-factor' })).not.toBeInTheDocument();
    expect(posts).toEqual(['u-bob']);
  });

  it('offers no two-factor reset for a user without it', async () => {
    openUser(aUser({ id: 'u-una', twoFactorEnabled: false }));
    expect(await screen.findByRole('button', { name: 'Unlock sign-in' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reset two-factor' })).not.toBeInTheDocument();
  });
});
