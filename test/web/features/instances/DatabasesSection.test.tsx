import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CurrentUser } from '../../../../contracts/auth';
import type { Instance } from '../../../../contracts/instances';
import { admin, regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aDatabase, aRole, databaseServer } from '../../handlers/databasesHandlers';
import { allGroupsHandler, anInstance, instanceServer, instancesListHandler } from '../../handlers/instancesHandlers';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

const server = setupMsw();
beforeAll(() => import('../../../../src/features/instances/InstancePage'), 30_000);
jest.setTimeout(20_000);
const firstRender = { timeout: 5000 };

const orders = anInstance({ id: 'i-1', name: 'orders' });

function openInstance(who: CurrentUser, instance: Instance = orders, databases = databaseServer()) {
  const fake = instanceServer(instance, { databases, password: 'Own3r-pass', superuserPassword: 'Sup3r-s3cret' });
  server.use(meHandler(who), ...fake.handlers, instancesListHandler().handler, allGroupsHandler([{ id: 'g-1', name: 'payments' }]));
  const user = userEvent.setup();
  return { ...renderApp('/instances/i-1'), fake, databases, user };
}

const section = () => within(screen.getByRole('region', { name: 'Databases & roles' }));
const table = (name: string) => within(section().getByRole('table', { name }));
const rows = (name: string) => table(name).getAllByRole('row').slice(1).map((row) => row.textContent);
const opened = async () => {
  await screen.findByRole('heading', { level: 1, name: 'orders' }, firstRender);
  await section().findByRole('table', { name: 'Roles' });
  await section().findByRole('table', { name: 'Databases' });
};

describe('Databases & roles', () => {
  it('lists the databases with owners and sizes, and the roles with their memberships', async () => {
    openInstance(
      regular,
      orders,
      databaseServer({
        databases: [aDatabase(), aDatabase({ name: 'postgres', owner: 'postgres', system: true, isDefault: false }), aDatabase({ name: 'reports', isDefault: false, sizeBytes: 2_000_000 })],
        roles: [aRole(), aRole({ name: 'postgres', owner: false, superuser: true }), aRole({ name: 'reader', owner: false, managed: true, memberOf: ['app'] })],
      }),
    );
    await opened();
    expect(rows('Databases')).toEqual([
      expect.stringMatching(/^appdefaultapp7\.\d MB$/),
      expect.stringMatching(/^postgressystempostgres7\.\d MB$/),
      'reportsapp2.0 MBDrop',
    ]);
    // Only what may be dropped offers it.
    expect(section().getAllByRole('button', { name: /^Drop database/ }).map((b) => b.getAttribute('aria-label'))).toEqual(['Drop database reports']);
    expect(rows('Roles')).toEqual(['appownerYes—', 'postgressuperuserYes—', 'readerYesappEditDrop']);
    expect(section().queryByRole('button', { name: 'Edit role app' })).not.toBeInTheDocument();
    expect(section().queryByRole('button', { name: 'Drop role postgres' })).not.toBeInTheDocument();
  });

  it('creates a database owned by the chosen role, and shows it', async () => {
    const { user, databases } = openInstance(regular, orders, databaseServer({ roles: [aRole(), aRole({ name: 'writer', owner: false, managed: true })] }));
    await opened();
    await user.click(section().getByRole('button', { name: 'New database' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New database' }));
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), 'reports');
    await user.click(dialog.getByRole('combobox', { name: 'Owner' }));
    // Only the owner and roles made through Warden may own a database.
    expect(dialog.getAllByRole('option').map((o) => o.textContent)).toEqual(['app', 'writer']);
    await user.click(dialog.getByRole('option', { name: 'writer' }));
    await user.click(dialog.getByRole('button', { name: 'Create' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(databases.bodies).toEqual([{ name: 'reports', owner: 'writer' }]);
    expect(await table('Databases').findByText('reports')).toBeInTheDocument();
    expect(await screen.findByText('Database created')).toBeInTheDocument();
  });

  it("keeps the dialog open with the server's words beside the field when the name is refused", async () => {
    const { user } = openInstance(regular);
    await opened();
    await user.click(section().getByRole('button', { name: 'New database' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New database' }));
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), 'Bad-Name');
    await user.click(dialog.getByRole('button', { name: 'Create' }));
    expect(await dialog.findByText(/must match pattern/)).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'New database' })).toBeInTheDocument();
  });

  it('drops a database only after a confirmation', async () => {
    const { user, databases } = openInstance(regular, orders, databaseServer({ databases: [aDatabase(), aDatabase({ name: 'reports', isDefault: false })] }));
    await opened();
    await user.click(section().getByRole('button', { name: 'Drop database reports' }));
    let dialog = within(await screen.findByRole('dialog', { name: 'Drop database reports?' }));
    await user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(databases.calls).toEqual([]);

    await user.click(section().getByRole('button', { name: 'Drop database reports' }));
    dialog = within(await screen.findByRole('dialog', { name: 'Drop database reports?' }));
    expect(dialog.getByText(/connections are ended/)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Drop' }));
    await waitFor(() => expect(table('Databases').queryByText('reports')).not.toBeInTheDocument());
    expect(databases.calls).toEqual(['DELETE database reports']);
  });

  it('creates a role with a login, a password and a membership', async () => {
    const { user, databases } = openInstance(regular);
    await opened();
    await user.click(section().getByRole('button', { name: 'New role' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New role' }));
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), 'reader');
    await user.type(dialog.getByLabelText('Password'), 'reader-secret-1');
    // The superuser is never offered as a membership.
    expect(dialog.queryByRole('checkbox', { name: /postgres/ })).not.toBeInTheDocument();
    await user.click(dialog.getByRole('checkbox', { name: 'app (owner)' }));
    await user.click(dialog.getByRole('button', { name: 'Create' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(databases.bodies).toEqual([{ name: 'reader', login: true, memberOf: ['app'], password: 'reader-secret-1' }]);
    expect(await table('Roles').findByText('reader')).toBeInTheDocument();
  });

  it('shows a refused role name beside the field', async () => {
    const { user } = openInstance(regular);
    await opened();
    await user.click(section().getByRole('button', { name: 'New role' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New role' }));
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), 'pg_evil');
    await user.click(dialog.getByRole('button', { name: 'Create' }));
    expect(await dialog.findByText('pg_evil is reserved.')).toBeInTheDocument();
  });

  it('renames a role and changes its memberships, sending only what changed', async () => {
    const roles = [aRole(), aRole({ name: 'helper', owner: false, managed: true, login: false }), aRole({ name: 'reader', owner: false, managed: true, memberOf: ['app'] })];
    const { user, databases } = openInstance(regular, orders, databaseServer({ roles }));
    await opened();
    await user.click(section().getByRole('button', { name: 'Edit role reader' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Edit role reader' }));
    const name = dialog.getByRole('textbox', { name: 'Name' });
    await user.clear(name);
    await user.type(name, 'viewer');
    await user.click(dialog.getByRole('checkbox', { name: 'helper' }));
    await user.click(dialog.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(databases.bodies).toEqual([{ newName: 'viewer', memberOf: ['app', 'helper'] }]);
    expect(await table('Roles').findByText('viewer')).toBeInTheDocument();
  });

  it('drops a role after a confirmation', async () => {
    const { user, databases } = openInstance(regular, orders, databaseServer({ roles: [aRole(), aRole({ name: 'reader', owner: false, managed: true })] }));
    await opened();
    await user.click(section().getByRole('button', { name: 'Drop role reader' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Drop role reader?' }));
    await user.click(dialog.getByRole('button', { name: 'Drop' }));
    await waitFor(() => expect(table('Roles').queryByText('reader')).not.toBeInTheDocument());
    expect(databases.calls).toEqual(['DELETE role reader']);
  });

  it('asks nothing of a stopped instance and says why', async () => {
    const { databases } = openInstance(regular, { ...orders, status: 'stopped' });
    await screen.findByRole('heading', { level: 1, name: 'orders' }, firstRender);
    expect(section().getByText('The instance is not running')).toBeInTheDocument();
    expect(section().queryByRole('button', { name: 'New database' })).not.toBeInTheDocument();
    expect(databases.state.reads).toBe(0);
  });

  it('says when the databases could not be loaded, and retries', async () => {
    const { user, databases } = openInstance(regular, orders, databaseServer({ failDatabases: true }));
    await screen.findByRole('heading', { level: 1, name: 'orders' }, firstRender);
    expect(await section().findByText('Could not load databases.')).toBeInTheDocument();
    await user.click(section().getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(databases.state.reads).toBe(2));
  });

  it('is not shown for etcd, which has neither', async () => {
    openInstance(admin, anInstance({ id: 'i-1', name: 'orders', type: 'etcd' }));
    await screen.findByRole('heading', { level: 1, name: 'orders' }, firstRender);
    expect(screen.queryByRole('region', { name: 'Databases & roles' })).not.toBeInTheDocument();
  });
});

describe('Connection: the owner and superuser passwords', () => {
  const connection = () => within(screen.getByRole('region', { name: 'Connection' }));

  it('rotates the owner password after a confirmation and shows the new one', async () => {
    const { user, databases } = openInstance(regular);
    await screen.findByRole('heading', { level: 1, name: 'orders' }, firstRender);
    await user.click(connection().getByRole('button', { name: 'Rotate password' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Rotate the password of orders?' }));
    await user.click(dialog.getByRole('button', { name: 'Rotate' }));
    expect(await connection().findByLabelText('Password')).toHaveTextContent('n3w-R0tated');
    expect(databases.calls).toEqual(['POST rotate']);
  });

  it('lets an admin reveal the superuser password only after a warning, marked dangerous', async () => {
    const { user, fake } = openInstance(admin);
    await screen.findByRole('heading', { level: 1, name: 'orders' }, firstRender);
    const reveal = connection().getByRole('button', { name: 'Reveal superuser password' });
    await user.click(reveal);
    const dialog = within(await screen.findByRole('dialog', { name: 'Reveal the superuser password of orders?' }));
    expect(dialog.getByText(/recorded as a dangerous action/)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(fake.calls).toEqual([]);

    await user.click(connection().getByRole('button', { name: 'Reveal superuser password' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Reveal' }));
    expect(await connection().findByLabelText('Superuser password')).toHaveTextContent('Sup3r-s3cret');
    expect(connection().getByRole('alert')).toHaveTextContent(/not for applications/);
    expect(fake.calls).toEqual(['POST secret superuser']);
  });

  it('offers a regular member no superuser password', async () => {
    openInstance(regular);
    await screen.findByRole('heading', { level: 1, name: 'orders' }, firstRender);
    expect(connection().getByRole('button', { name: 'Reveal password' })).toBeInTheDocument();
    expect(connection().queryByRole('button', { name: 'Reveal superuser password' })).not.toBeInTheDocument();
  });
});
