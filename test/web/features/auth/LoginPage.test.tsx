import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { LoginFailure } from '../../../../contracts/auth';
import { admin } from '../../fixtures';
import { registrationOptionsHandler } from '../../handlers/accountHandlers';
import { meHandler, unauthorized } from '../../handlers/authHandlers';
import { groupsListHandler } from '../../handlers/groupsHandlers';
import { instanceScreensAtRest } from '../../handlers/instancesHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

beforeAll(() => import('../../../../src/features/auth/LoginPage'), 30_000);

const server = setupMsw();

/** No session until the login call succeeds; then /auth/me answers the admin. */
function serverWithLogin(answer: (body: Record<string, unknown>, query: URLSearchParams) => LoginFailure | 'ok') {
  let signedIn = false;
  const bodies: Record<string, unknown>[] = [];
  const queries: URLSearchParams[] = [];
  server.use(
    http.get('/auth/me', () => (signedIn ? HttpResponse.json(admin) : unauthorized())),
    http.post('/auth/login', async ({ request }) => {
      const query = new URL(request.url).searchParams;
      queries.push(query);
      const body = (await request.json()) as Record<string, unknown>;
      bodies.push(body);
      const outcome = answer(body, query);
      if (outcome !== 'ok') return problem(401, 'Unauthorized', outcome);
      signedIn = true;
      return new HttpResponse(null, { status: 200 });
    }),
  );
  return { bodies, queries };
}

async function fillCredentials(user: ReturnType<typeof userEvent.setup>, password = 'S3cret!pass') {
  await user.type(await screen.findByLabelText('E-mail'), 'ada@example.com');
  await user.type(screen.getByLabelText('Password'), password);
}

describe('LoginPage', () => {
  // Signing in may land on the groups list or the instance list.
  beforeEach(() => server.use(registrationOptionsHandler(false), groupsListHandler().handler, ...instanceScreensAtRest()));

  it('says so inline when the e-mail or password is wrong, without a toast', async () => {
    serverWithLogin(() => 'Failed');
    const user = userEvent.setup();
    renderApp('/login');

    await fillCredentials(user, 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByText('Wrong e-mail or password.')).toBeInTheDocument();
    expect(screen.getAllByRole('alert')).toHaveLength(1);
  });

  it('says inline what went wrong when the server fails, keeping what was typed', async () => {
    server.use(
      http.get('/auth/me', () => unauthorized()),
      http.post('/auth/login', () => problem(500, 'Internal Server Error', 'The store is not answering.')),
    );
    const user = userEvent.setup();
    renderApp('/login');
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    // The page carries no overlays (a first visit loads it alone): the failure shows in its own alert.
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not sign in: The store is not answering.');
    // What was typed stays, to try again.
    expect(screen.getByLabelText('E-mail')).toHaveValue('ada@example.com');
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it.each([
    ['LockedOut', 'Too many failed attempts. The account is locked for 5 minutes.'],
    ['NotAllowed', 'This account is disabled.'],
  ] as const)('explains %s', async (failure, message) => {
    serverWithLogin(() => failure);
    const user = userEvent.setup();
    renderApp('/login');
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
  });

  it('asks for the authenticator code when the account needs it, then signs in with it and returns', async () => {
    const { bodies } = serverWithLogin((body) => (body.twoFactorCode === '123456' ? 'ok' : 'RequiresTwoFactor'));
    const user = userEvent.setup();
    const { location } = renderApp('/login?returnUrl=%2Fgroups%3Fpage%3D2');

    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await user.type(await screen.findByLabelText('Authentication code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Groups' })).toBeInTheDocument();
    expect(location()).toBe('/groups?page=2');
    expect(bodies).toEqual([
      { email: 'ada@example.com', password: 'S3cret!pass' },
      { email: 'ada@example.com', password: 'S3cret!pass', twoFactorCode: '123456' },
    ]);
  });

  it('calls a wrong code a wrong code', async () => {
    serverWithLogin((body) => (body.twoFactorCode ? 'Failed' : 'RequiresTwoFactor'));
    const user = userEvent.setup();
    renderApp('/login');
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await user.type(await screen.findByLabelText('Authentication code'), '000000');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Wrong authentication code.')).toBeInTheDocument();
  });

  it('signs in with a recovery code instead of the authenticator code, and names a used one', async () => {
    const { bodies } = serverWithLogin((body) =>
      body.twoFactorRecoveryCode === 'ABCDE-12345' ? 'ok' : body.twoFactorRecoveryCode ? 'Failed' : 'RequiresTwoFactor',
    );
    const user = userEvent.setup();
    const { location } = renderApp('/login');
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await user.click(await screen.findByRole('button', { name: 'Use a recovery code' }));

    expect(screen.getByLabelText('Recovery code')).toHaveAccessibleDescription(
      'One of the codes you saved when you turned on two-factor sign-in. Each works once.',
    );
    await user.type(screen.getByLabelText('Recovery code'), 'USED0-00000');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Wrong or already used recovery code.')).toBeInTheDocument();

    await user.clear(screen.getByLabelText('Recovery code'));
    await user.type(screen.getByLabelText('Recovery code'), ' ABCDE-12345 ');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(location()).toBe('/instances'));
    expect(bodies.at(-1)).toEqual({ email: 'ada@example.com', password: 'S3cret!pass', twoFactorRecoveryCode: 'ABCDE-12345' });
  });

  it('asks for a session cookie, or a persistent one when kept signed in', async () => {
    const { queries } = serverWithLogin(() => 'Failed');
    const user = userEvent.setup();
    renderApp('/login');
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByText('Wrong e-mail or password.');
    await user.click(screen.getByLabelText('Keep me signed in'));
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    await waitFor(() => expect(queries).toHaveLength(2));
    expect(Object.fromEntries(queries[0])).toEqual({ useSessionCookies: 'true' });
    expect(Object.fromEntries(queries[1])).toEqual({ useCookies: 'true' });
  });

  it('is busy while signing in', async () => {
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      meHandler(null),
      http.post('/auth/login', async () => {
        await answered;
        return problem(401, 'Unauthorized', 'Failed');
      }),
    );
    const user = userEvent.setup();
    renderApp('/login');
    await fillCredentials(user);
    const button = screen.getByRole('button', { name: 'Sign in' });
    await user.click(button);

    expect(button).toBeDisabled();
    answer();
    await screen.findByText('Wrong e-mail or password.');
    expect(button).toBeEnabled();
  });

  it.each(['https://evil.example/', '//evil.example/x'])('goes to /instances instead of the foreign returnUrl %s', async (returnUrl) => {
    serverWithLogin(() => 'ok');
    const user = userEvent.setup();
    const { location } = renderApp(`/login?${new URLSearchParams({ returnUrl })}`);
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Instances' })).toBeInTheDocument();
    expect(location()).toBe('/instances');
  });

  it('leads to the forgot-password page', async () => {
    server.use(meHandler(null));
    const user = userEvent.setup();
    const { location } = renderApp('/login');
    await user.click(await screen.findByRole('link', { name: 'Forgot password?' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Forgot password' })).toBeInTheDocument();
    expect(location()).toBe('/forgot-password');
  });

  it('offers "Create account" when registration is open', async () => {
    server.use(meHandler(null), registrationOptionsHandler(true));
    const user = userEvent.setup();
    const { location } = renderApp('/login');
    await user.click(await screen.findByRole('link', { name: 'Create account' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Create account' })).toBeInTheDocument();
    expect(location()).toBe('/register');
  });

  it.each([
    ['closed', false],
    ['unknown to the server (404)', 'missing'],
  ] as const)('offers no "Create account" when registration is %s, and raises no error', async (_case, open) => {
    let asked = false;
    // Looks, then lets the answer below through.
    server.use(meHandler(null), http.get('/auth/options', () => void (asked = true)), registrationOptionsHandler(open));
    const { store } = renderApp('/login');
    expect(await screen.findByRole('link', { name: 'Forgot password?' })).toBeInTheDocument();
    await waitFor(() => expect(asked).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('link', { name: 'Create account' })).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(store.getState().ui.toasts).toEqual([]);
  });
});
