import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { CurrentUser } from '../../../../contracts/auth';
import type { Host } from '../../../../contracts/hosts';
import type { CreateInstanceRequest } from '../../../../contracts/instances';
import { hostsApi } from '../../../../src/features/hosts/hostsApi';
import { admin, regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aHost, hostsHandlers } from '../../handlers/hostsHandlers';
import { allGroupsHandler, anInstance, instanceServer, instancesListHandler } from '../../handlers/instancesHandlers';
import { pageOf, validationProblem } from '../../handlers/pages';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { openOptions, pickOption } from '../../pickOption';

const server = setupMsw();
beforeAll(() => import('../../../../src/features/instances/CreateInstancePage'), 30_000);
// The first render of the console is slow in jsdom, slower still beside other suites.
jest.setTimeout(15_000);
const firstRender = { timeout: 5000 };

const taken = new Map([['orders', 'An instance named orders already exists.']]);

interface CreateScreen {
  groups?: { id: string; name: string }[];
  path?: string;
  /** GET /hosts (admins): one host unless told, as a single-process Warden has. */
  hosts?: Host[];
}

/** The create screen with a server that knows which names are taken and logs every check and creation. */
function openCreate(
  who: CurrentUser,
  { groups = [{ id: 'g-1', name: 'payments' }], path = '/instances/create', hosts = [aHost()] }: CreateScreen = {},
) {
  const hostsApi = hostsHandlers(hosts);
  const checked: string[] = [];
  const created: CreateInstanceRequest[] = [];
  const fresh = anInstance({ id: 'i-new', name: 'ledger', status: 'unInitialized', operation: { kind: 'create', startedAt: 't' } });
  server.use(
    meHandler(who),
    allGroupsHandler(groups),
    http.post('/instances/validate-name', async ({ request }) => {
      const { name } = (await request.json()) as { name: string };
      checked.push(name);
      const reason = taken.get(name);
      return HttpResponse.json(reason ? { valid: false, reason } : { valid: true });
    }),
    http.post('/instances', async ({ request }) => {
      const body = (await request.json()) as CreateInstanceRequest;
      created.push(body);
      return HttpResponse.json({ ...fresh, name: body.name }, { status: 202 });
    }),
    ...instanceServer(fresh).handlers,
    ...hostsApi.handlers,
  );
  // No pause between keystrokes: only a pause the test makes lets the name check fire.
  const user = userEvent.setup({ delay: null });
  return { ...renderApp(path), user, checked, created, hostReads: hostsApi.gets };
}

const nameField = () => screen.findByRole('textbox', { name: 'Name' }, firstRender);

/** GET /instances: group g-1's etcd instances, one of them stopped; none in any other group. */
function etcdsOfPayments() {
  const etcds = [anInstance({ id: 'e-1', name: 'locks', type: 'etcd' }), anInstance({ id: 'e-2', name: 'queue', type: 'etcd', status: 'stopped' })];
  const list = instancesListHandler((query) => pageOf(query.get('type') === 'etcd' && query.get('groupId') === 'g-1' ? etcds : []));
  server.use(list.handler);
  return list;
}

/** Two online hosts with room, as GET /hosts lists them. */
const twoHosts = () => [
  aHost({ id: 'h-1', name: 'host-1', address: '10.0.0.1', instanceCount: 5, freePorts: 95 }),
  aHost({ id: 'h-2', name: 'host-2', address: '10.0.0.2', instanceCount: 3, freePorts: 120 }),
];

const optionNames = async (user: ReturnType<typeof userEvent.setup>, combobox: HTMLElement) =>
  within(await openOptions(user, combobox))
    .getAllByRole('option')
    .map((option) => option.textContent);

describe('CreateInstancePage', () => {
  it('says what is wrong with a name as it is typed, without asking the server', async () => {
    const { user, checked } = openCreate(admin);
    await user.type(await nameField(), 'Orders');
    expect(screen.getByText('The name must start with a lower-case letter.')).toBeInTheDocument();
    expect(await nameField()).toHaveAttribute('aria-invalid', 'true');

    await user.clear(await nameField());
    await user.type(await nameField(), 'ab');
    expect(screen.getByText('The name must have at least 3 characters.')).toBeInTheDocument();
    // Longer than the check waits for typing to pause.
    await act(() => new Promise((resolve) => setTimeout(resolve, 400)));
    expect(checked).toEqual([]);
  });

  it('asks the server once typing pauses, and shows why a name is taken', async () => {
    const { user, checked } = openCreate(admin);
    await user.type(await nameField(), 'orders');
    expect(await screen.findByText('An instance named orders already exists.')).toBeInTheDocument();
    // One question for the settled name, none for each keystroke.
    expect(checked).toEqual(['orders']);

    await user.type(await nameField(), '-eu');
    expect(screen.queryByText('An instance named orders already exists.')).not.toBeInTheDocument();
    expect(await screen.findByText('This name is available.')).toBeInTheDocument();
    expect(checked).toEqual(['orders', 'orders-eu']);
  });

  it('creates the instance with its group, description and parameters, then opens it', async () => {
    const { user, created, location } = openCreate(admin);
    await user.type(await nameField(), 'ledger');
    await pickOption(user, screen.getByRole('combobox', { name: 'Type' }), 'etcd');
    await pickOption(user, screen.getByRole('combobox', { name: 'Group' }), 'payments');
    await user.click(screen.getByLabelText('Description'));
    await user.paste(' The books ');
    await user.click(screen.getByRole('button', { name: 'Add parameter' }));
    await user.click(screen.getByRole('textbox', { name: 'Parameter 1 name' }));
    await user.paste('quota-backend-bytes');
    await user.click(screen.getByRole('textbox', { name: 'Parameter 1 value' }));
    await user.paste('4294967296');
    await user.click(screen.getByRole('button', { name: 'Add parameter' }));
    await user.click(screen.getByRole('button', { name: 'Remove parameter 2' }));
    expect(await screen.findByText('This name is available.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'ledger' })).toBeInTheDocument();
    expect(location()).toBe('/instances/i-new');
    expect(screen.getByText('Creating…')).toBeInTheDocument();
    expect(created).toEqual([
      {
        name: 'ledger',
        type: 'etcd',
        groupId: 'g-1',
        description: 'The books',
        parameters: { 'quota-backend-bytes': '4294967296' },
      },
    ]);
  });

  it('offers etcd a cluster of 3 or 5 members', async () => {
    const { user, created } = openCreate(admin);
    await user.type(await nameField(), 'locks');
    await pickOption(user, screen.getByRole('combobox', { name: 'Type' }), 'etcd');
    expect(await optionNames(user, screen.getByRole('combobox', { name: 'Members' }))).toEqual([
      '1 member',
      '3 members: writable with one lost',
      '5 members: writable with two lost',
    ]);
    await pickOption(user, screen.getByRole('combobox', { name: 'Members' }), '3 members: writable with one lost');
    expect(await screen.findByText('This name is available.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(created).toEqual([{ name: 'locks', type: 'etcd', members: 3 }]));
  });

  it('builds a PostgreSQL cluster on an etcd instance of its group, with synchronous replication and a failover timing', async () => {
    const { user, created } = openCreate(admin);
    const etcdList = etcdsOfPayments();
    await user.type(await nameField(), 'ledger');
    await pickOption(user, screen.getByRole('combobox', { name: 'Group' }), 'payments');
    expect(screen.queryByRole('combobox', { name: 'Consensus store' })).not.toBeInTheDocument();
    await pickOption(user, screen.getByRole('combobox', { name: 'Members' }), '3 members: a leader and two standbys');

    const store = screen.getByRole('combobox', { name: 'Consensus store' });
    expect(store).toHaveAccessibleDescription(
      "A cluster keeps its leader lock in an etcd instance of the same group: one of the group's, or a new one of 3 members made with the cluster.",
    );
    expect(store).toHaveTextContent('A new 3-member etcd (ledger-dcs)');
    await pickOption(user, store, 'locks');
    expect(etcdList.last()).toEqual({ page: '1', pageSize: '100', type: 'etcd', groupId: 'g-1' });
    // A stopped etcd instance is listed, but cannot be chosen.
    expect(within(await openOptions(user, store)).getByRole('option', { name: 'queue (stopped)' })).toHaveAttribute('aria-disabled', 'true');
    await user.keyboard('{Escape}');

    const synchronous = screen.getByRole('checkbox', { name: 'Synchronous replication' });
    expect(synchronous).toHaveAccessibleDescription(/no acknowledged commit; writes are slower. While no standby is left, commits stop waiting until one is back/);
    await user.click(synchronous);
    expect(synchronous).toBeChecked();

    const timing = screen.getByRole('combobox', { name: 'Failover timing' });
    expect(timing).toHaveTextContent('Fast: a lost leader is replaced within ~22 s');
    expect(await optionNames(user, timing)).toEqual([
      'Fast: a lost leader is replaced within ~22 s',
      'Normal: a lost leader is replaced within ~46 s',
      'Safe: a lost leader is replaced within ~79 s',
    ]);
    await user.keyboard('{Escape}');

    expect(await screen.findByText('This name is available.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() =>
      expect(created).toEqual([
        { name: 'ledger', type: 'pg', groupId: 'g-1', members: 3, dcsInstanceId: 'e-1', synchronous: true, failoverPreset: 'fast' },
      ]),
    );
  });

  it('leaves the consensus store to be made with the cluster when none is chosen', async () => {
    const { user, created } = openCreate(admin, {
      groups: [
        { id: 'g-1', name: 'payments' },
        { id: 'g-2', name: 'ledger' },
      ],
    });
    etcdsOfPayments();
    await user.type(await nameField(), 'ledger');
    await pickOption(user, screen.getByRole('combobox', { name: 'Group' }), 'ledger');
    await pickOption(user, screen.getByRole('combobox', { name: 'Members' }), '2 members: a leader and a standby');
    expect(screen.getByRole('combobox', { name: 'Consensus store' })).toHaveTextContent('A new 3-member etcd (ledger-dcs)');
    expect(await screen.findByText('This name is available.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(created).toEqual([{ name: 'ledger', type: 'pg', groupId: 'g-2', members: 2, synchronous: false, failoverPreset: 'fast' }]));
  });

  it('shows the server’s complaint about the consensus store beside it', async () => {
    const { user } = openCreate(admin);
    etcdsOfPayments();
    server.use(http.post('/instances', () => validationProblem({ dcsInstanceId: ['The etcd instance locks is not running.'] })));
    await user.type(await nameField(), 'ledger');
    await pickOption(user, screen.getByRole('combobox', { name: 'Group' }), 'payments');
    await pickOption(user, screen.getByRole('combobox', { name: 'Members' }), '5 members: a leader and four standbys');
    await pickOption(user, screen.getByRole('combobox', { name: 'Consensus store' }), 'locks');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    const store = screen.getByRole('combobox', { name: 'Consensus store' });
    await waitFor(() => expect(store).toHaveAttribute('aria-invalid', 'true'));
    expect(store).toHaveAccessibleDescription(/The etcd instance locks is not running\./);
    // Beside the field only, not again above the form.
    expect(screen.getAllByText('The etcd instance locks is not running.')).toHaveLength(1);
  });

  it('sends a single PostgreSQL server without any of the cluster’s fields', async () => {
    const { user, created } = openCreate(admin);
    etcdsOfPayments();
    await user.type(await nameField(), 'ledger');
    const members = screen.getByRole('combobox', { name: 'Members' });
    expect(members).toHaveTextContent('1 member (a single server)');
    // Choosing a cluster and going back to one server leaves nothing of the cluster behind.
    await pickOption(user, members, '2 members: a leader and a standby');
    await pickOption(user, members, '1 member (a single server)');
    expect(screen.queryByRole('combobox', { name: 'Consensus store' })).not.toBeInTheDocument();
    expect(screen.queryByRole('checkbox', { name: 'Synchronous replication' })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Failover timing' })).not.toBeInTheDocument();
    expect(await screen.findByText('This name is available.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(created).toEqual([{ name: 'ledger', type: 'pg' }]));
  });

  it('starts a changed type at one member', async () => {
    const { user } = openCreate(admin);
    etcdsOfPayments();
    await nameField();
    await pickOption(user, screen.getByRole('combobox', { name: 'Members' }), '3 members: a leader and two standbys');
    await pickOption(user, screen.getByRole('combobox', { name: 'Type' }), 'etcd');
    expect(screen.getByRole('combobox', { name: 'Members' })).toHaveTextContent('1 member');
    expect(screen.queryByRole('combobox', { name: 'Consensus store' })).not.toBeInTheDocument();
  });

  it('shows the server’s complaints beside the fields and keeps everything typed', async () => {
    const { user } = openCreate(admin);
    server.use(
      http.post('/instances', () =>
        validationProblem({ max_connections: ['Must be at least 1.'], description: ['Too long for the audit log.'] }),
      ),
    );
    await user.type(await nameField(), 'ledger');
    await user.click(screen.getByLabelText('Description'));
    await user.paste('The books');
    await user.click(screen.getByRole('button', { name: 'Add parameter' }));
    await user.click(screen.getByRole('textbox', { name: 'Parameter 1 name' }));
    await user.paste('max_connections');
    await user.type(screen.getByRole('textbox', { name: 'Parameter 1 value' }), '0');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByText('Must be at least 1.')).toBeInTheDocument();
    expect(screen.getByText('Too long for the audit log.')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Parameter 1 value' })).toHaveValue('0');
    expect(screen.getByLabelText('Description')).toHaveValue('The books');
    expect(await nameField()).toHaveValue('ledger');
    expect(screen.getByRole('heading', { level: 1, name: 'Create instance' })).toBeInTheDocument();
  });

  it('says beside the name that it was taken meanwhile (409)', async () => {
    const { user } = openCreate(admin);
    server.use(http.post('/instances', () => problem(409, 'Conflict', 'An instance named ledger already exists.')));
    await user.type(await nameField(), 'ledger');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('An instance named ledger already exists.', { selector: '[data-part="error-text"]' })).toBeInTheDocument();
    expect(await nameField()).toHaveAttribute('aria-invalid', 'true');
  });

  it('starts with the group a group page’s "Add instance" chose', async () => {
    openCreate(regular, {
      groups: [
        { id: 'g-1', name: 'payments' },
        { id: 'g-2', name: 'ledger' },
      ],
      path: '/instances/create?groupId=g-2',
    });
    await nameField();
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Group' })).toHaveValue('g-2'));
  });

  it('makes a regular user choose one of their groups', async () => {
    const { user, created } = openCreate(regular);
    await user.type(await nameField(), 'ledger');
    const group = screen.getByRole('combobox', { name: 'Group' });
    expect(within(await openOptions(user, group)).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose one of your groups', 'payments']);
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Choose one of your groups.')).toBeInTheDocument();
    expect(created).toEqual([]);

    await pickOption(user, group, 'payments');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(created).toEqual([{ name: 'ledger', type: 'pg', groupId: 'g-1' }]));
  });

  it('lets an admin choose the host of the instance among several', async () => {
    const { user, created } = openCreate(admin, { hosts: twoHosts() });
    await user.type(await nameField(), 'ledger');
    const host = await screen.findByRole('combobox', { name: 'Host' });
    expect(host).toHaveAccessibleDescription("Where the instance runs; its ports come from that host's range.");
    expect(host).toHaveTextContent('Automatic — the host with the most room');
    expect(await optionNames(user, host)).toEqual([
      'Automatic — the host with the most room',
      'host-1 (10.0.0.1) — 5 instances, 95 free ports',
      'host-2 (10.0.0.2) — 3 instances, 120 free ports',
    ]);
    await user.keyboard('{Escape}');

    await pickOption(user, host, 'host-2 (10.0.0.2) — 3 instances, 120 free ports');
    expect(await screen.findByText('This name is available.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(created).toEqual([{ name: 'ledger', type: 'pg', hostId: 'h-2' }]));
  });

  it('leaves the host to the server when an admin keeps "Automatic"', async () => {
    const { user, created } = openCreate(admin, { hosts: twoHosts() });
    await user.type(await nameField(), 'ledger');
    const host = await screen.findByRole('combobox', { name: 'Host' });
    // Chosen and then taken back: nothing of the choice is sent.
    await pickOption(user, host, /^host-1 /);
    await pickOption(user, host, 'Automatic — the host with the most room');
    expect(await screen.findByText('This name is available.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(created).toEqual([{ name: 'ledger', type: 'pg' }]));
  });

  it('lists lost and draining hosts without letting them be chosen', async () => {
    const { user } = openCreate(admin, {
      hosts: [
        ...twoHosts(),
        aHost({ id: 'h-3', name: 'host-3', address: '10.0.0.3', state: 'lost', lostAt: '2025-03-01T00:05:00.000Z' }),
        aHost({ id: 'h-4', name: 'host-4', address: '10.0.0.4', draining: true }),
      ],
    });
    await nameField();
    const options = within(await openOptions(user, await screen.findByRole('combobox', { name: 'Host' })));
    expect(options.getByRole('option', { name: 'host-3 (10.0.0.3) — 3 instances, 97 free ports (lost)' })).toHaveAttribute('aria-disabled', 'true');
    expect(options.getByRole('option', { name: 'host-4 (10.0.0.4) — 3 instances, 97 free ports (draining)' })).toHaveAttribute('aria-disabled', 'true');
    expect(options.getByRole('option', { name: /^host-2 / })).not.toHaveAttribute('aria-disabled');

    await user.click(options.getByRole('option', { name: /^host-3 / }));
    expect(screen.getByRole('combobox', { name: 'Host' })).toHaveTextContent('Automatic — the host with the most room');
  });

  it('shows the server’s complaint about the host beside it', async () => {
    const { user } = openCreate(admin, { hosts: twoHosts() });
    server.use(http.post('/instances', () => validationProblem({ hostId: ['host-2 has no free port left.'] })));
    await user.type(await nameField(), 'ledger');
    await pickOption(user, await screen.findByRole('combobox', { name: 'Host' }), /^host-2 /);
    await user.click(screen.getByRole('button', { name: 'Create' }));

    const host = screen.getByRole('combobox', { name: 'Host' });
    await waitFor(() => expect(host).toHaveAttribute('aria-invalid', 'true'));
    expect(host).toHaveAccessibleDescription(/host-2 has no free port left\./);
    // Beside the field only, not again above the form.
    expect(screen.getAllByText('host-2 has no free port left.')).toHaveLength(1);
  });

  it('offers no host to choose when there is only one', async () => {
    const { store } = openCreate(admin);
    await nameField();
    await waitFor(() => expect(hostsApi.endpoints.getHosts.select()(store.getState()).data?.items).toHaveLength(1));
    expect(screen.queryByRole('combobox', { name: 'Host' })).not.toBeInTheDocument();
    expect(screen.queryByText("Where the instance runs; its ports come from that host's range.")).not.toBeInTheDocument();
  });

  it('neither asks a regular user’s browser for the hosts nor offers a choice of host', async () => {
    const { hostReads } = openCreate(regular, { hosts: twoHosts() });
    await nameField();
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Group' })).toHaveTextContent('Choose one of your groups'));
    // Long enough for a request the screen made on mount to have been answered.
    await act(() => new Promise((resolve) => setTimeout(resolve, 100)));
    expect(hostReads).toEqual([]);
    expect(screen.queryByRole('combobox', { name: 'Host' })).not.toBeInTheDocument();
  });

  it('tells a regular user without groups why nothing can be created', async () => {
    openCreate(regular, { groups: [] });
    expect(await screen.findByText('You are not a member of any group', {}, firstRender)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create' })).toBeDisabled();
  });
});
