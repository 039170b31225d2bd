import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { StrictMode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { prerenderedLoginPage } from '../../../../scripts/webpack/prerenderLogin';
import { LoginPage } from '../../../../src/features/auth/LoginPage';
import { registrationOptionsHandler } from '../../handlers/accountHandlers';
import { setupMsw } from '../../msw';

const server = setupMsw();

describe('the sign-in page a first visit loads alone (login.html)', () => {
  beforeEach(() => server.use(registrationOptionsHandler(true)));

  it('signs in without a store or router, with plain links to the other account screens', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post('/auth/login', async ({ request }) => {
        bodies.push(await request.json());
        return new HttpResponse(null, { status: 200 });
      }),
    );
    const signedIn = jest.fn();
    const user = userEvent.setup();
    render(<LoginPage onSignedIn={signedIn} />);

    expect(await screen.findByRole('link', { name: 'Create account' })).toHaveAttribute('href', '/register');
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/forgot-password');
    await user.type(screen.getByLabelText('E-mail'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'S3cret!pass');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    await waitFor(() => expect(signedIn).toHaveBeenCalledTimes(1));
    expect(bodies).toEqual([{ email: 'ada@example.com', password: 'S3cret!pass' }]);
  });

  it('is drawn at build time with Sign in waiting, and React takes it over without a mismatch, keeping what was typed', async () => {
    const { head, body } = prerenderedLoginPage();
    expect(head).toContain('<title>Sign in · Warden</title>');
    const root = document.createElement('div');
    root.innerHTML = body;
    document.body.append(root);
    expect(root.querySelector('h1')?.textContent).toBe('Sign in to Warden');
    expect(root.querySelector('button[type=submit]')).toHaveProperty('disabled', true);
    // Typed before React arrived.
    (root.querySelector('input[name=email]') as HTMLInputElement).value = 'early@example.com';

    const recoverable = jest.fn();
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await act(async () => {
        hydrateRoot(
          root,
          <StrictMode>
            <LoginPage onSignedIn={() => undefined} />
          </StrictMode>,
          { onRecoverableError: recoverable },
        );
      });
      await waitFor(() => expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled());
      expect(recoverable).not.toHaveBeenCalled();
      expect(errors).not.toHaveBeenCalled();
      expect(screen.getByLabelText('E-mail')).toHaveValue('early@example.com');
    } finally {
      errors.mockRestore();
      root.remove();
    }
  });
});
