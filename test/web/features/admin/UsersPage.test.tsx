import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { User } from '../../../../contracts/users';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { pageOf, validationProblem } from '../../handlers/pages';
import { aUser, rolesHandler, usersListHandler } from '../../handlers/usersHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { pickOption } from '../../pickOption';

beforeAll(() => import('../../../../src/features/admin/UsersPage'), 30_000);

const server = setupMsw();

const ada = aUser({ id: 'u-admin', email: 'ada@example.com', role: 'admin', twoFactorEnabled: true, lastLoginAt: '2025-03-04T05:06:07.000Z' });
const rob = aUser({ id: 'u-rob', email: 'rob@example.com', disabled: true });

function openUsers(path = '/admin/users', answer: (query: URLSearchParams) => ReturnType<typeof pageOf<User>> = () => pageOf([ada, rob])) {
  const list = usersListHandler(answer);
  server.use(meHandler(admin), rolesHandler(), list.handler);
  const user = userEvent.setup();
  return { ...renderApp(path), list, user };
}

const table = () => screen.findByRole('table', { name: 'Users' });

describe('UsersPage', () => {
  it('lists the users with their role, two-factor state and status, each leading to its page', async () => {
    openUsers();
    const rows = within(await table()).getAllByRole('row');
    expect(rows.map((row) => within(row).queryAllByRole('cell').map((cell) => cell.textContent).slice(0, 4))).toEqual([
      [],
      ['ada@example.com', 'Admin', 'On', 'Enabled'],
      ['rob@example.com', 'Regular', 'Off', 'Disabled'],
    ]);
    expect(within(rows[2]).getAllByRole('cell')[5]).toHaveTextContent('Never');
    expect(screen.getByRole('link', { name: 'rob@example.com' })).toHaveAttribute('href', '/admin/users/u-rob');
  });

  it('asks the server for the page, sort and search in the URL', async () => {
    const { list } = openUsers('/admin/users?page=2&pageSize=10&sort=-createdAt&search=ad&role=admin');
    await table();
    expect(list.last()).toEqual({ page: '2', pageSize: '10', sort: '-createdAt', search: 'ad', role: 'admin' });
    expect(screen.getByRole('searchbox', { name: 'Search users' })).toHaveValue('ad');
    expect(screen.getByRole('columnheader', { name: /Created/ })).toHaveAttribute('aria-sort', 'descending');
  });

  it('searches once typing pauses, keeping the search in the URL and starting at page 1', async () => {
    const { list, user, location } = openUsers('/admin/users?page=3');
    await table();
    await user.type(screen.getByRole('searchbox', { name: 'Search users' }), 'rob');
    await waitFor(() => expect(location()).toBe('/admin/users?search=rob'));
    await waitFor(() => expect(list.last()).toEqual({ page: '1', pageSize: '25', search: 'rob' }));
    // One request for the pause, not one per key.
    expect(list.seen.filter((query) => query.has('search'))).toHaveLength(1);
  });

  it('filters by role and status', async () => {
    const { list, user, location } = openUsers();
    await table();
    await pickOption(user, screen.getByLabelText('Filter by role'), 'Admin');
    await pickOption(user, screen.getByLabelText('Filter by status'), 'Disabled');
    await waitFor(() => expect(list.last()).toEqual({ page: '1', pageSize: '25', role: 'admin', disabled: 'true' }));
    expect(location()).toBe('/admin/users?role=admin&disabled=true');
  });

  it('sorts by a column header, then the other way', async () => {
    const { list, user, location } = openUsers();
    await table();
    await user.click(screen.getByRole('button', { name: 'E-mail' }));
    await waitFor(() => expect(screen.getByRole('columnheader', { name: /E-mail/ })).toHaveAttribute('aria-sort', 'ascending'));
    expect(location()).toBe('/admin/users?sort=email');
    await user.click(screen.getByRole('button', { name: 'E-mail' }));
    await waitFor(() => expect(screen.getByRole('columnheader', { name: /E-mail/ })).toHaveAttribute('aria-sort', 'descending'));
    expect(location()).toBe('/admin/users?sort=-email');
    await waitFor(() => expect(list.last().sort).toBe('-email'));
  });

  it('pages through the list', async () => {
    const { list, user, location } = openUsers('/admin/users', (query) =>
      pageOf([ada], { page: Number(query.get('page')), pageSize: 25, total: 60 }),
    );
    await table();
    expect(screen.getByText('Page 1 of 3')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Page 2 of 3')).toBeInTheDocument();
    expect(location()).toBe('/admin/users?page=2');
    expect(list.last().page).toBe('2');
  });

  it.each([
    ['/admin/users', 'No users yet.'],
    ['/admin/users?search=zed', 'No users match.'],
  ])('says when %s has no users', async (path, text) => {
    openUsers(path, () => pageOf([]));
    expect(await screen.findByText(text)).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('shows a failed list as such, toasted once, and retries', async () => {
    let fail = true;
    server.use(
      meHandler(admin),
      rolesHandler(),
      http.get('/admin/users', () => (fail ? problem(500, 'Internal Server Error', 'The store is not answering.') : HttpResponse.json(pageOf([ada])))),
    );
    const user = userEvent.setup();
    const { store } = renderApp('/admin/users');
    expect(await screen.findByText('Could not load users.')).toBeInTheDocument();
    expect(store.getState().ui.toasts).toEqual([
      expect.objectContaining({ status: 'error', summary: 'Request failed', detail: 'The store is not answering.' }),
    ]);
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await within(await table()).findByText('ada@example.com')).toBeInTheDocument();
  });
});

describe('a locked user', () => {
  // Far ahead, so the lockout is still in force whenever the test runs; 16:42 in the reader's time.
  const lockedUntil = new Date(2099, 0, 2, 16, 42).toISOString();

  it('shows the lockout in force beside its Unlock, and after unlocking shows Enabled again', async () => {
    const una = aUser({ id: 'u-una', email: 'una@example.com', lockedUntil, failedSignIns: 5 });
    const unlocks: string[] = [];
    server.use(
      http.post('/admin/users/:id/unlock', ({ params }) => {
        unlocks.push(String(params.id));
        Object.assign(una, { lockedUntil: null, failedSignIns: 0 });
        return HttpResponse.json({ locksLifted: 1 });
      }),
    );
    const { user } = openUsers('/admin/users', () => pageOf([una, rob]));
    const row = within(await table()).getByRole('link', { name: 'una@example.com' }).closest('tr') as HTMLElement;
    const status = within(row).getAllByRole('cell')[3];
    expect(status).toHaveTextContent(/^Locked until 16:42 \(5 failed sign-ins\)Unlock$/);
    expect(within(status).queryByText('Enabled')).not.toBeInTheDocument();

    await user.click(within(status).getByRole('button', { name: 'Unlock sign-in for una@example.com' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Unlock sign-in for una@example.com?' })).getByRole('button', { name: 'Unlock' }));

    await waitFor(() => expect(status).toHaveTextContent(/^Enabled$/));
    expect(unlocks).toEqual(['u-una']);
  });

  it('no longer shows a lockout that has passed', async () => {
    openUsers('/admin/users', () => pageOf([aUser({ lockedUntil: '2020-01-01T00:00:00.000Z', failedSignIns: 5 })]));
    const status = within(await table()).getAllByRole('row')[1].querySelectorAll('td')[3];
    expect(status).toHaveTextContent(/^Enabled$/);
  });
});

describe('Create user', () => {
  function createHandler(answer: (body: Record<string, unknown>) => Response) {
    const bodies: Record<string, unknown>[] = [];
    server.use(
      http.post('/admin/users', async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        bodies.push(body);
        return answer(body);
      }),
    );
    return bodies;
  }

  async function fillDialog(user: ReturnType<typeof userEvent.setup>, email: string, password: string) {
    await user.click(await screen.findByRole('button', { name: 'Create user' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Create user' }));
    await user.type(dialog.getByLabelText('E-mail'), email);
    await pickOption(user, dialog.getByLabelText('Role'), 'Admin');
    await user.type(dialog.getByLabelText('Initial password'), password);
    await user.click(dialog.getByRole('button', { name: 'Create' }));
    return dialog;
  }

  it('shows the 400 problem’s errors beside their fields and keeps the dialog open', async () => {
    createHandler(() =>
      validationProblem({
        DuplicateEmail: ["Email 'ada@example.com' is already taken."],
        PasswordRequiresNonAlphanumeric: ['Passwords must have at least one non alphanumeric character.'],
      }),
    );
    const { user } = openUsers();
    const dialog = await fillDialog(user, 'ada@example.com', 'Secret123');
    expect(await dialog.findByText("Email 'ada@example.com' is already taken.")).toBeInTheDocument();
    expect(dialog.getByText('Passwords must have at least one non alphanumeric character.')).toBeInTheDocument();
    expect(dialog.getByLabelText('E-mail')).toHaveAttribute('aria-invalid', 'true');
    expect(dialog.getByLabelText('Initial password')).toHaveAttribute('aria-invalid', 'true');
    expect(dialog.getByLabelText('Role')).not.toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('dialog', { name: 'Create user' })).toBeInTheDocument();
  });

  it('creates the user, closes, and lists again', async () => {
    const created = aUser({ id: 'u-new', email: 'new@example.com', role: 'admin' });
    const bodies = createHandler(() => HttpResponse.json(created, { status: 201 }));
    const { user, list, store } = openUsers();
    await table();
    const before = list.seen.length;
    await fillDialog(user, 'new@example.com', 'Secret1!');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(bodies).toEqual([{ email: 'new@example.com', role: 'admin', password: 'Secret1!' }]);
    await waitFor(() => expect(list.seen.length).toBe(before + 1));
    expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ status: 'success', summary: 'User created' })]);
  });
});
