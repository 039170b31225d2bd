import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { admin } from '../../fixtures';
import { registrationOptionsHandler } from '../../handlers/accountHandlers';
import { meHandler } from '../../handlers/authHandlers';
import { validationProblem } from '../../handlers/pages';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

beforeAll(
  () =>
    Promise.all([
      import('../../../../src/features/auth/ConfirmEmailPage'),
      import('../../../../src/features/auth/ForgotPasswordPage'),
      import('../../../../src/features/auth/RegisterPage'),
    ]),
  30_000,
);

const server = setupMsw();

const heading = (name: string) => screen.findByRole('heading', { level: 1, name });

/** A POST handler that answers `answer` and keeps every body it got. */
function postLog(path: string, answer: (body: Record<string, unknown>) => Response = () => new HttpResponse(null, { status: 200 })) {
  const bodies: Record<string, unknown>[] = [];
  server.use(
    http.post(path, async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      bodies.push(body);
      return answer(body);
    }),
  );
  return bodies;
}

describe('forgot password', () => {
  beforeEach(() => server.use(meHandler(null)));

  it('says the same words whatever the address, so nobody learns who has an account', async () => {
    const bodies = postLog('/auth/forgotPassword');
    const messages: string[] = [];
    for (const email of ['ada@example.com', 'nobody@example.com']) {
      const user = userEvent.setup();
      const view = renderApp('/forgot-password');
      await user.type(await screen.findByLabelText('E-mail'), email);
      await user.click(screen.getByRole('button', { name: 'Send reset link' }));
      messages.push((await screen.findByRole('status')).textContent ?? '');
      view.unmount();
    }
    expect(bodies).toEqual([{ email: 'ada@example.com' }, { email: 'nobody@example.com' }]);
    expect(messages[0]).toContain('If an account exists for that address, we sent it a link to reset the password.');
    expect(messages[1]).toBe(messages[0]);
  });
});

describe('register', () => {
  beforeEach(() => server.use(meHandler(null)));

  async function fill(user: ReturnType<typeof userEvent.setup>, password = 'Secret1!', repeat = password) {
    await user.type(await screen.findByLabelText('E-mail'), 'new@example.com');
    await user.type(screen.getByLabelText('Password'), password);
    await user.type(screen.getByLabelText('Confirm password'), repeat);
    await user.click(screen.getByRole('button', { name: 'Create account' }));
  }

  it('creates the account and asks to confirm the address', async () => {
    server.use(registrationOptionsHandler(true));
    const bodies = postLog('/auth/register');
    const user = userEvent.setup();
    renderApp('/register');
    await fill(user);
    expect(await screen.findByText(/We sent a confirmation link to new@example.com/)).toBeInTheDocument();
    expect(bodies).toEqual([{ email: 'new@example.com', password: 'Secret1!' }]);
  });

  it('shows the server’s validation errors beside their fields', async () => {
    server.use(registrationOptionsHandler(true));
    postLog('/auth/register', () =>
      validationProblem({
        DuplicateEmail: ["Email 'new@example.com' is already taken."],
        PasswordRequiresUpper: ["Passwords must have at least one uppercase ('A'-'Z')."],
      }),
    );
    const user = userEvent.setup();
    renderApp('/register');
    await fill(user, 'secret1!');
    expect(await screen.findByText("Email 'new@example.com' is already taken.")).toBeInTheDocument();
    expect(screen.getByText("Passwords must have at least one uppercase ('A'-'Z').")).toBeInTheDocument();
    expect(screen.getByLabelText('E-mail')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Password')).toHaveAttribute('aria-invalid', 'true');
  });

  it('does not send two different passwords', async () => {
    server.use(registrationOptionsHandler(true));
    const bodies = postLog('/auth/register');
    const user = userEvent.setup();
    renderApp('/register');
    await fill(user, 'Secret1!', 'Secret1?');
    expect(await screen.findByText('The passwords do not match.')).toBeInTheDocument();
    expect(bodies).toEqual([]);
  });

  it('says registration is closed instead of showing the form', async () => {
    server.use(registrationOptionsHandler(false));
    renderApp('/register');
    expect(await screen.findByText(/Registration is closed/)).toBeInTheDocument();
    expect(screen.queryByLabelText('E-mail')).not.toBeInTheDocument();
  });
});

describe('confirm e-mail', () => {
  function confirmHandler(ok: boolean) {
    const queries: Record<string, string>[] = [];
    server.use(
      http.get('/auth/confirmEmail', ({ request }) => {
        queries.push(Object.fromEntries(new URL(request.url).searchParams));
        return ok
          ? new HttpResponse('Thank you for confirming your email.', { headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
          : problem(401, 'Unauthorized', 'The confirmation link is not valid.');
      }),
    );
    return queries;
  }

  it('confirms with the link’s values and says so', async () => {
    server.use(meHandler(null));
    const queries = confirmHandler(true);
    renderApp('/confirm-email?userId=u-7&code=abc%2Bdef');
    expect(await heading('E-mail confirmed')).toBeInTheDocument();
    expect(screen.getByText('Your e-mail address is confirmed.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
    expect(queries).toEqual([{ userId: 'u-7', code: 'abc+def' }]);
  });

  it('names the new address of a changed e-mail, and leads a signed-in user to the profile', async () => {
    server.use(meHandler(admin));
    const queries = confirmHandler(true);
    renderApp('/confirm-email?userId=u-admin&code=c&changedEmail=ada%40new.example');
    expect(await screen.findByText('Your e-mail address is now ada@new.example.')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Go to your profile' })).toHaveAttribute('href', '/profile');
    expect(queries).toEqual([{ userId: 'u-admin', code: 'c', changedEmail: 'ada@new.example' }]);
  });

  it('calls a refused link invalid, without signing anyone out or raising a toast', async () => {
    server.use(meHandler(admin));
    confirmHandler(false);
    const { store, location } = renderApp('/confirm-email?userId=u-admin&code=stale');
    expect(await screen.findByText('This confirmation link is invalid or has expired.')).toBeInTheDocument();
    await waitFor(() => expect(store.getState().auth.status).toBe('authenticated'));
    expect(store.getState().ui.toasts).toEqual([]);
    expect(location()).toBe('/confirm-email?userId=u-admin&code=stale');
  });

  it('says an incomplete link is incomplete, without asking the server', async () => {
    server.use(meHandler(null));
    const queries = confirmHandler(true);
    renderApp('/confirm-email?userId=u-7');
    expect(await screen.findByText('This link is incomplete.')).toBeInTheDocument();
    expect(queries).toEqual([]);
  });
});

describe('reset password', () => {
  beforeEach(() => server.use(meHandler(null)));
  const link = '/reset-password?email=ada%40example.com&code=R3SET';

  async function choose(user: ReturnType<typeof userEvent.setup>, password: string, repeat = password) {
    await user.type(await screen.findByLabelText('New password'), password);
    await user.type(screen.getByLabelText('Confirm new password'), repeat);
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
  }

  it('sets the new password with the link’s address and code', async () => {
    const bodies = postLog('/auth/resetPassword');
    const user = userEvent.setup();
    renderApp(link);
    expect(await screen.findByText('Choose a new password for ada@example.com.')).toBeInTheDocument();
    await choose(user, 'N3w-secret');
    expect(await screen.findByText('Your password was reset.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
    expect(bodies).toEqual([{ email: 'ada@example.com', resetCode: 'R3SET', newPassword: 'N3w-secret' }]);
  });

  it('offers a new link when the code is no longer valid', async () => {
    postLog('/auth/resetPassword', () => validationProblem({ InvalidToken: ['Invalid token.'] }));
    const user = userEvent.setup();
    renderApp(link);
    await choose(user, 'N3w-secret');
    expect(await screen.findByText('This reset link is invalid or has expired.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ask for a new link' })).toHaveAttribute('href', '/forgot-password');
  });

  it('shows a password the server refuses, rule by rule', async () => {
    postLog('/auth/resetPassword', () => validationProblem({ PasswordTooShort: ['Passwords must be at least 8 characters.'] }));
    const user = userEvent.setup();
    renderApp(link);
    await choose(user, 'Sh0rt!');
    expect(await screen.findByText('Passwords must be at least 8 characters.')).toBeInTheDocument();
  });

  it('does not send two different passwords', async () => {
    const bodies = postLog('/auth/resetPassword');
    const user = userEvent.setup();
    renderApp(link);
    await choose(user, 'N3w-secret', 'N3w-secreT');
    expect(await screen.findByText('The passwords do not match.')).toBeInTheDocument();
    expect(bodies).toEqual([]);
  });
});
