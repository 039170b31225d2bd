import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { admin } from '../fixtures';
import { meHandler } from '../handlers/authHandlers';
import { backupScreensAtRest } from '../handlers/backupsHandlers';
import { debugHandler, outboxHandler } from '../features/debug/debugHandlers';
import { identityScreensAtRest } from '../handlers/identityScreens';
import { instanceScreensAtRest } from '../handlers/instancesHandlers';
import { scriptScreensAtRest } from '../handlers/scriptsHandlers';
import { setupMsw } from '../msw';
import { renderApp } from '../renderApp';

const server = setupMsw();
// The screens opened here call the API on mount; they answer quietly so every call is handled.
beforeEach(() =>
  // The instance screens' answers first: GET /groups/all is theirs, not a group's.
  server.use(...instanceScreensAtRest(), ...backupScreensAtRest(), ...scriptScreensAtRest(), ...identityScreensAtRest(), debugHandler().handler, outboxHandler([]).handler),
);

const heading = (name: string) => screen.findByRole('heading', { level: 1, name });

// The heaviest screens are lazy routes: load their code once, before the tests time their steps
// (a loaded machine takes longer than a screen's wait to compile them on first use).
beforeAll(
  () =>
    Promise.all([
      import('../../../src/features/instances/InstancePage'),
      import('../../../src/features/instances/EditConfigurationPage'),
      import('../../../src/features/logs/LogsPage'),
    ]),
  60_000,
);

describe('routes (SPEC §2)', () => {
  beforeEach(() => server.use(meHandler(admin)));

  it.each([
    ['/', '/instances', 'Instances'],
    ['/graphs', '/graphs/instance-creation', 'Instance creation'],
    ['/no/such/screen', '/instances', 'Instances'],
  ])('redirects %s to %s', async (from, to, title) => {
    const { location } = renderApp(from);
    expect(await heading(title)).toBeInTheDocument();
    expect(location()).toBe(to);
  });

  it.each([
    ['/instances', 'Instances'],
    // The Instance, Group and User screens are titled with what they show once it has loaded (their
    // generic titles are only there while loading, and would be found and then replaced).
    ['/instances/42', 'orders'],
    ['/instances/create', 'Create instance'],
    ['/instances/42/configuration', 'Configuration'],
    ['/instances/42/script', 'Script'],
    ['/instances/42/backups/database', 'Database backups'],
    ['/instances/42/backups/files', 'File backups'],
    ['/instances-update', 'Instances update'],
    ['/groups', 'Groups'],
    ['/groups/7', 'payments'],
    ['/logs', 'Logs'],
    ['/backups', 'Backups'],
    ['/clients', 'Clients'],
    ['/profile', 'Profile'],
    ['/admin/users', 'Users'],
    ['/admin/users/9', 'una@example.com'],
    ['/debug', 'Debug'],
  ])('shows %s as the %s screen', async (path, title) => {
    const { location } = renderApp(path);
    expect(await heading(title)).toBeInTheDocument();
    expect(location()).toBe(path);
  });

  it('renders nothing until the current-user call answers', async () => {
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get('/auth/me', async () => {
        await answered;
        return HttpResponse.json(admin);
      }),
    );

    const { container } = renderApp('/instances');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(container).toBeEmptyDOMElement();
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();

    answer();
    expect(await heading('Instances')).toBeInTheDocument();
  });

  it('sends someone without a session to sign in, with the way back', async () => {
    server.use(meHandler(null));
    const { location } = renderApp('/groups?page=2');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(location()).toBe('/login?returnUrl=%2Fgroups%3Fpage%3D2');
  });

  it('sends a signed-in visitor of /login on to returnUrl', async () => {
    const { location } = renderApp('/login?returnUrl=%2Fgroups%3Fpage%3D2');
    expect(await heading('Groups')).toBeInTheDocument();
    expect(location()).toBe('/groups?page=2');
  });

  it('sends a signed-in visitor of /login without returnUrl to /instances', async () => {
    const { location } = renderApp('/login');
    await waitFor(() => expect(location()).toBe('/instances'));
  });
});
