import { isRejectedWithValue, type Action } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SagaIterator } from 'redux-saga';
import { put, takeEvery } from 'redux-saga/effects';
import { authApi } from '../features/auth/authApi';
import { userCleared } from '../features/auth/authSlice';
import { pushToast } from '../features/ui/uiSlice';
import { baseApi } from './baseApi';
import { errorStatus, problemText } from './problemText';

interface FailedCall extends Action {
  payload: FetchBaseQueryError;
  meta: { arg: { endpointName: string }; aborted: boolean };
}

/** A call of the one API that got an error answer (not one skipped, cached or aborted). */
function isFailedApiCall(action: Action): action is FailedCall {
  return (
    isRejectedWithValue(action) &&
    action.type.startsWith(`${baseApi.reducerPath}/`) &&
    !action.meta.aborted
  );
}

/**
 * The one place where failed calls become what the person sees (SPEC §8). Screens never
 * toast errors themselves; the login page only adds its inline words for refused sign-ins.
 */
export function* apiErrorSaga(): SagaIterator {
  yield takeEvery(isFailedApiCall, reportFailure);
}

function* reportFailure(action: FailedCall): SagaIterator {
  const status = errorStatus(action.payload);
  // A refused sign-in is answered inline by the login page.
  if (status === 401 && authApi.endpoints.login.matchRejected(action)) return;
  // The session is gone: the session saga takes the person to sign in, no toast needed.
  if (status === 401) {
    yield put(userCleared());
    return;
  }
  if (authApi.endpoints.me.matchRejected(action)) {
    yield put(pushToast({ status: 'error', summary: 'Oops, something went wrong' }));
    return;
  }
  yield put(pushToast({ status: 'error', summary: 'Request failed', detail: problemText(action.payload) }));
}
