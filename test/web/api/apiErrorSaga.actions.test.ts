import type { UnknownAction } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { legacy_configureStore as configureMockStore } from 'redux-mock-store';
import { apiErrorSaga } from '../../../src/api/apiErrorSaga';
import { userCleared } from '../../../src/features/auth/authSlice';
import { pushToast } from '../../../src/features/ui/uiSlice';

/** A rejected call as RTK Query dispatches it (api/executeQuery/rejected with the error as payload). */
function rejectedCall(endpointName: string, payload: unknown, type = 'api/executeQuery/rejected'): UnknownAction {
  return {
    type,
    payload,
    error: { message: 'Rejected' },
    meta: {
      arg: { type: 'query', endpointName, originalArgs: undefined, queryCacheKey: `${endpointName}(undefined)` },
      requestId: 'req-1',
      requestStatus: 'rejected',
      rejectedWithValue: true,
      aborted: false,
      condition: false,
    },
  };
}

/** The error saga alone on a mock store: what it dispatches in answer to each failure, in order. */
function recordSaga() {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureMockStore<object>([sagaMiddleware])({});
  sagaMiddleware.run(apiErrorSaga);
  return store;
}

const types = (actions: UnknownAction[]) => actions.map((action) => action.type);

describe('apiErrorSaga: the actions it dispatches', () => {
  it('answers a failed call with an error toast, and a 401 with clearing the user only', () => {
    const store = recordSaga();
    const failed = rejectedCall('groupsPage', { status: 500, data: { title: 'Internal Server Error', status: 500, type: 'x', detail: 'boom' } });
    const expired = rejectedCall('deleteGroup', { status: 401, data: { title: 'Unauthorized', status: 401, type: 'x' } }, 'api/executeMutation/rejected');

    store.dispatch(failed);
    store.dispatch(expired);

    const actions = store.getActions() as UnknownAction[];
    expect(types(actions)).toEqual([failed.type, pushToast.type, expired.type, userCleared.type]);
    expect(actions[1].payload).toMatchObject({ status: 'error', summary: 'Request failed', detail: 'boom' });
  });

  it('names the request of a server fault, so its log lines can be found, but not of a refusal', () => {
    const store = recordSaga();
    store.dispatch(rejectedCall('groupsPage', { status: 500, data: { title: 'Internal Server Error', status: 500, type: 'x', requestId: 'f00d-1' } }));
    store.dispatch(rejectedCall('groupsPage', { status: 409, data: { title: 'Conflict', status: 409, type: 'x', detail: 'Busy.', requestId: 'f00d-2' } }));

    const toasts = (store.getActions() as UnknownAction[]).filter((action) => action.type === pushToast.type);
    expect(toasts.map((toast) => (toast.payload as { detail?: string }).detail)).toEqual(['Internal Server Error. Request id: f00d-1', 'Busy.']);
  });

  it('dispatches nothing for a refused sign-in, a skipped call or one that is not the API', () => {
    const store = recordSaga();
    const refused = rejectedCall('login', { status: 401, data: { detail: 'Failed' } }, 'api/executeMutation/rejected');
    const skipped = { ...rejectedCall('groupsPage', undefined), meta: { requestStatus: 'rejected', requestId: 'r', condition: true } };
    const otherThunk = rejectedCall('groupsPage', { status: 500 }, 'somethingElse/rejected');

    store.dispatch(refused);
    store.dispatch(skipped);
    store.dispatch(otherThunk);

    expect(types(store.getActions() as UnknownAction[])).toEqual([refused.type, skipped.type, otherThunk.type]);
  });
});
