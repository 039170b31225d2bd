import type { UnknownAction } from '@reduxjs/toolkit';
import { waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import createSagaMiddleware from 'redux-saga';
import { legacy_configureStore as configureMockStore } from 'redux-mock-store';
import { setupStore } from '../../../../src/app/store';
import { groupsApi } from '../../../../src/features/groups/groupsApi';
import { groupDeletionRequested, groupsSaga, memberRemovalRequested } from '../../../../src/features/groups/groupsSaga';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { closeModal, openModal } from '../../../../src/features/ui/uiSlice';
import { aGroup } from '../../handlers/groupsHandlers';
import { pageOf } from '../../handlers/pages';
import { setupMsw } from '../../msw';

const server = setupMsw();

describe('groupsSaga', () => {
  it.each([
    ['removing a member', memberRemovalRequested({ group: aGroup(), member: { id: 'u-1', email: 'una@example.com' } })],
    ['deleting a group', groupDeletionRequested({ group: aGroup() })],
  ])('asks before %s and does nothing on a no', (_what, request) => {
    const sagaMiddleware = createSagaMiddleware();
    const store = configureMockStore<object>([sagaMiddleware])({});
    const navigate = jest.fn();
    sagaMiddleware.run(groupsSaga, { navigate });

    store.dispatch(request);
    store.dispatch(closeModal(false));

    expect((store.getActions() as UnknownAction[]).map((action) => action.type)).toEqual([request.type, openModal.type, closeModal.type]);
    expect(navigate).not.toHaveBeenCalled();
  });

  it.each([
    ['members', ['group', 'list', 'members']],
    ['updated', ['group', 'list']],
    ['deleted', ['list']],
  ] as const)('refreshes what a GroupChanged "%s" makes stale', async (change, refreshed) => {
    const asked: string[] = [];
    server.use(
      http.get('/groups', () => {
        asked.push('list');
        return HttpResponse.json(pageOf([aGroup()]));
      }),
      http.get('/groups/:id', () => {
        asked.push('group');
        return HttpResponse.json(aGroup());
      }),
      http.get('/groups/:id/users', () => {
        asked.push('members');
        return HttpResponse.json(pageOf([]));
      }),
    );
    const store = setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });
    store.dispatch(groupsApi.endpoints.groups.initiate({ page: 1, pageSize: 25 }));
    store.dispatch(groupsApi.endpoints.group.initiate('g-1'));
    store.dispatch(groupsApi.endpoints.groupMembers.initiate({ groupId: 'g-1', page: 1, pageSize: 25 }));
    await waitFor(() => expect(asked).toHaveLength(3));

    store.dispatch(hubEvent('GroupChanged', { id: 'g-1', change }, 't'));
    await waitFor(() => expect(asked.slice(3).sort()).toEqual(refreshed));
    // Nothing else follows.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(asked.slice(3).sort()).toEqual(refreshed);
  });
});
