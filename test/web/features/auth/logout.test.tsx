import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { admin } from '../../fixtures';
import { registrationOptionsHandler } from '../../handlers/accountHandlers';
import { unauthorized } from '../../handlers/authHandlers';
import { groupsListHandler } from '../../handlers/groupsHandlers';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

beforeAll(() => import('../../../../src/features/groups/GroupsPage'), 30_000);

const server = setupMsw();

describe('log out (SPEC §4)', () => {
  it('calls /auth/logout, then refetches the current user, and opens the login screen', async () => {
    let session = true;
    const calls: string[] = [];
    server.use(
      groupsListHandler().handler,
      registrationOptionsHandler(false),
      http.get('/auth/me', () => {
        calls.push('GET /auth/me');
        return session ? HttpResponse.json(admin) : unauthorized();
      }),
      http.post('/auth/logout', () => {
        calls.push('POST /auth/logout');
        session = false;
        return new HttpResponse(null, { status: 200 });
      }),
    );
    const user = userEvent.setup();
    const { store, location } = renderApp('/groups');
    await screen.findByRole('heading', { level: 1, name: 'Groups' });
    await waitFor(() => expect(calls).toEqual(['GET /auth/me']));

    await user.click(screen.getByRole('button', { name: 'Log out' }));

    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    // 'me' is refetched once because logout invalidates it, once more because the session's cache is dropped.
    await waitFor(() => expect(calls).toEqual(['GET /auth/me', 'POST /auth/logout', 'GET /auth/me', 'GET /auth/me']));
    expect(store.getState().auth).toEqual({ user: null, status: 'anonymous' });
    // Nothing of the signed-out person's data stays cached for whoever signs in next.
    const cached = Object.keys(store.getState().api.queries);
    expect(cached.filter((key) => !key.startsWith('me(') && !key.startsWith('registrationOptions('))).toEqual([]);
    expect(location()).toBe('/login?returnUrl=%2Fgroups');
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(store.getState().ui.toasts).toEqual([]);
  });
});
