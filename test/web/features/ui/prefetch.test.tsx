import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { setupStore } from '../../../../src/app/store';
import { usersApi } from '../../../../src/features/admin/usersApi';
import { prefetchData, prefetchTimeoutMs, routeOf } from '../../../../src/features/ui/routePrefetch';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aGroup, groupsListHandler } from '../../handlers/groupsHandlers';
import { identityScreensAtRest } from '../../handlers/identityScreens';
import { instanceScreensAtRest } from '../../handlers/instancesHandlers';
import { pageOf } from '../../handlers/pages';
import { aUser } from '../../handlers/usersHandlers';
import { deferred } from '../realtime/fakeHub';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

beforeAll(() => Promise.all([import('../../../../src/features/instances/InstancesPage'), import('../../../../src/features/groups/GroupsPage')]), 30_000);

const server = setupMsw();
beforeEach(() => server.use(...instanceScreensAtRest(), ...identityScreensAtRest()));

const bareStore = () => setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });

describe('link prefetch (SPEC §9)', () => {
  it('abandons a prefetch after 2000 ms', () => {
    expect(prefetchTimeoutMs).toBe(2000);
  });

  it('knows which screen a link leads to, static paths before parameters', () => {
    expect(routeOf('/instances/create')).toEqual({ name: 'createInstance', params: {} });
    expect(routeOf('/instances/i-7?tab=logs')).toEqual({ name: 'singleInstance', params: { id: 'i-7' } });
    expect(routeOf('/nowhere')).toBeNull();
  });

  it('asks for the first page of the target list when a sidebar link is hovered, and the screen then shows it without asking again', async () => {
    const groups = groupsListHandler(() => pageOf([aGroup({ id: 'g-1', name: 'payments' })]));
    server.use(meHandler(admin), groups.handler);
    const { location } = renderApp('/instances');
    const nav = within(await screen.findByRole('navigation', { name: 'Main' }));
    await screen.findByRole('heading', { level: 1, name: 'Instances' });

    fireEvent.mouseEnter(nav.getByRole('link', { name: 'Groups' }));
    await waitFor(() => expect(groups.seen).toHaveLength(1));
    expect(groups.last()).toEqual({ page: '1', pageSize: '25' });
    expect(location()).toBe('/instances');

    await userEvent.setup().click(nav.getByRole('link', { name: 'Groups' }));
    expect(await screen.findByRole('link', { name: 'payments' })).toBeInTheDocument();
    expect(groups.seen).toHaveLength(1);
  });

  it('asks for a row’s target when its link gets the focus', async () => {
    const asked = jest.fn();
    server.use(
      meHandler(admin),
      groupsListHandler(() => pageOf([aGroup({ id: 'g-1', name: 'payments' })])).handler,
      http.get('/groups/:id', ({ params }) => {
        asked(params.id);
        return HttpResponse.json(aGroup({ id: 'g-1', name: 'payments' }));
      }),
    );
    renderApp('/groups');
    const link = await screen.findByRole('link', { name: 'payments' });
    fireEvent.focus(link);
    await waitFor(() => expect(asked).toHaveBeenCalledWith('g-1'));
  });

  it('abandons a request that has not answered in time, unless the link was followed', async () => {
    const signals: AbortSignal[] = [];
    const answer = deferred();
    server.use(
      http.get('/admin/users/:id', async ({ request, params }) => {
        signals.push(request.signal);
        await answer.promise;
        return HttpResponse.json(aUser({ id: String(params.id) }));
      }),
    );
    const store = bareStore();
    const slow = prefetchData(store.dispatch, '/admin/users/u-1', 10);
    await slow.settled;
    expect(signals[0].aborted).toBe(true);

    const followed = prefetchData(store.dispatch, '/admin/users/u-2', 10);
    followed.keep();
    await waitFor(() => expect(signals).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 30));
    answer.resolve();
    await followed.settled;
    expect(signals[1].aborted).toBe(false);
    expect(usersApi.endpoints.user.select('u-2')(store.getState()).data?.id).toBe('u-2');
  });
});
