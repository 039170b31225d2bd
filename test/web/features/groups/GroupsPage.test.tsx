import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { CurrentUser } from '../../../../contracts/auth';
import { admin, regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aGroup, groupServer, groupsListHandler } from '../../handlers/groupsHandlers';
import { pageOf } from '../../handlers/pages';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

beforeAll(() => import('../../../../src/features/groups/GroupsPage'), 30_000);

const server = setupMsw();

const payments = aGroup({ id: 'g-1', name: 'payments', memberCount: 3, instanceCount: 2 });
const search = aGroup({ id: 'g-2', name: 'search', description: '', memberCount: 1 });

function openGroups(who: CurrentUser, path = '/groups', groups = [payments, search]) {
  const list = groupsListHandler(() => pageOf(groups));
  server.use(meHandler(who), list.handler);
  const user = userEvent.setup();
  return { ...renderApp(path), list, user };
}

describe('GroupsPage', () => {
  it('lists the groups with their members and instances, each leading to its page', async () => {
    openGroups(admin);
    const table = within(await screen.findByRole('table', { name: 'Groups' }));
    const cells = table.getAllByRole('row').map((row) => within(row).queryAllByRole('cell').map((cell) => cell.textContent).slice(0, 4));
    expect(cells).toEqual([[], ['payments', 'The payment databases', '3', '2'], ['search', '', '1', '0']]);
    expect(table.getByRole('link', { name: 'payments' })).toHaveAttribute('href', '/groups/g-1');
  });

  it('searches, sorts and pages on the server, with the state in the URL', async () => {
    const { list, user, location } = openGroups(admin, '/groups?page=2');
    await screen.findByRole('table', { name: 'Groups' });
    expect(list.last()).toEqual({ page: '2', pageSize: '25' });

    await user.click(screen.getByRole('button', { name: 'Name' }));
    await waitFor(() => expect(location()).toBe('/groups?sort=name'));
    await user.type(screen.getByRole('searchbox', { name: 'Search groups' }), 'pay');
    await waitFor(() => expect(location()).toBe('/groups?sort=name&search=pay'));
    await waitFor(() => expect(list.last()).toEqual({ page: '1', pageSize: '25', sort: 'name', search: 'pay' }));
  });

  it('shows a regular user their groups, without Create group', async () => {
    openGroups(regular, '/groups', []);
    expect(await screen.findByText('You are not a member of any group.')).toBeInTheDocument();
    expect(screen.getByText(/The groups you are a member of/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create group' })).not.toBeInTheDocument();
  });

  it('creates a group and opens it', async () => {
    const created = aGroup({ id: 'g-new', name: 'analytics', description: 'BI replicas' });
    const bodies: unknown[] = [];
    server.use(
      http.post('/groups', async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json(created, { status: 201 });
      }),
      ...groupServer(created).handlers,
    );
    const { user, location } = openGroups(admin);
    await user.click(await screen.findByRole('button', { name: 'Create group' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Create group' }));
    await user.type(dialog.getByLabelText('Name'), ' analytics ');
    await user.type(dialog.getByLabelText('Description'), 'BI replicas');
    await user.click(dialog.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'analytics' })).toBeInTheDocument();
    expect(location()).toBe('/groups/g-new');
    expect(bodies).toEqual([{ name: 'analytics', description: 'BI replicas' }]);
  });

  it('says beside the name that another group has it', async () => {
    const taken = 'A group named payments already exists (names are compared ignoring case).';
    server.use(http.post('/groups', () => problem(409, 'Conflict', taken)));
    const { user } = openGroups(admin);
    await user.click(await screen.findByRole('button', { name: 'Create group' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Create group' }));
    await user.type(dialog.getByLabelText('Name'), 'Payments');
    await user.click(dialog.getByRole('button', { name: 'Create' }));
    expect(await dialog.findByText(taken)).toBeInTheDocument();
    expect(dialog.getByLabelText('Name')).toHaveAttribute('aria-invalid', 'true');
  });
});
