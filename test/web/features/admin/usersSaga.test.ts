import type { UnknownAction } from '@reduxjs/toolkit';
import { waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import createSagaMiddleware from 'redux-saga';
import { legacy_configureStore as configureMockStore } from 'redux-mock-store';
import { setupStore } from '../../../../src/app/store';
import { usersApi } from '../../../../src/features/admin/usersApi';
import { accessChangeRequested, roleChangeRequested, usersSaga } from '../../../../src/features/admin/usersSaga';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { closeModal, openModal } from '../../../../src/features/ui/uiSlice';
import { pageOf } from '../../handlers/pages';
import { aUser } from '../../handlers/usersHandlers';
import { setupMsw } from '../../msw';

const server = setupMsw();

function recordSaga() {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureMockStore<object>([sagaMiddleware])({});
  sagaMiddleware.run(usersSaga);
  return store;
}

const types = (store: ReturnType<typeof recordSaga>) => (store.getActions() as UnknownAction[]).map((action) => action.type);

const storeWithoutNavigation = () => setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });

describe('usersSaga', () => {
  const bob = aUser({ id: 'u-bob', email: 'bob@example.com', role: 'admin' });

  it('asks before demoting, and changes nothing when the answer is no', () => {
    const store = recordSaga();
    store.dispatch(roleChangeRequested({ user: bob, role: 'regular' }));
    const [, opened] = store.getActions() as ReturnType<typeof openModal>[];
    expect(opened).toMatchObject({
      type: openModal.type,
      payload: { title: 'Demote bob@example.com?', component: 'confirm', props: { confirmLabel: 'Demote', destructive: true } },
    });

    store.dispatch(closeModal(false));
    expect(types(store)).toEqual([roleChangeRequested.type, openModal.type, closeModal.type]);
  });

  it('asks before disabling, and takes a dismissed question for a no', () => {
    const store = recordSaga();
    store.dispatch(accessChangeRequested({ user: bob, disabled: true }));
    store.dispatch(closeModal(undefined));
    expect(types(store)).toEqual([accessChangeRequested.type, openModal.type, closeModal.type]);
  });

  it('promotes without asking', async () => {
    const puts: unknown[] = [];
    server.use(
      http.put('/admin/users/:id', async ({ request }) => {
        puts.push(await request.json());
        return HttpResponse.json({ ...aUser(), role: 'admin' });
      }),
    );
    const store = storeWithoutNavigation();
    store.dispatch(roleChangeRequested({ user: aUser(), role: 'admin' }));
    await waitFor(() => expect(puts).toEqual([{ role: 'admin' }]));
    expect(store.getState().ui.modal).toBeNull();
  });

  it('refreshes the list and the user when the hub says the user changed', async () => {
    const asked: string[] = [];
    server.use(
      http.get('/admin/users', () => {
        asked.push('list');
        return HttpResponse.json(pageOf([aUser()]));
      }),
      http.get('/admin/users/:id', ({ params }) => {
        asked.push(`user ${params.id}`);
        return HttpResponse.json(aUser());
      }),
    );
    const store = storeWithoutNavigation();
    store.dispatch(usersApi.endpoints.users.initiate({ page: 1, pageSize: 25 }));
    store.dispatch(usersApi.endpoints.user.initiate('u-1'));
    await waitFor(() => expect(asked.sort()).toEqual(['list', 'user u-1']));

    store.dispatch(hubEvent('UserChanged', { id: 'u-1', change: 'updated' }, 't'));
    await waitFor(() => expect(asked).toHaveLength(4));
    expect(asked.slice(2).sort()).toEqual(['list', 'user u-1']);
  });
});
