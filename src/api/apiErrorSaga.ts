import { isRejectedWithValue, type Action } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SagaIterator } from 'redux-saga';
import { put, takeEvery } from 'redux-saga/effects';
import { authApi } from '../features/auth/authApi';
import { userCleared } from '../features/auth/authSlice';
import { pushToast } from '../features/ui/uiSlice';
import { baseApi } from './baseApi';
import { errorStatus, problemOf, problemText } from './problemText';

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
 * The calls whose forms show every field error of a 400 beside its field or above the form
 * (components/fieldErrors.ts): a toast would only say it a second time.
 */
export const fieldErrorsShownInline: ReadonlySet<string> = new Set([
  'changeUserPassword',
  'cloneInstance',
  'createDatabase',
  'createGroup',
  'createInstance',
  'createInstanceRole',
  'createRestorePoint',
  'createUser',
  'register',
  'resetPassword',
  'saveBackupSchedule',
  'savePitrSettings',
  'twoFactor',
  'updateAccountInfo',
  'updateConfiguration',
  'updateGroup',
  'updateInstance',
  'updateInstanceRole',
]);

/**
 * The calls whose forms show a 400's detail as well as its field errors: a restore's target outside
 * the recoverable window is said beside the target, in the words of the server that knows the window.
 */
export const problemsShownInline: ReadonlySet<string> = new Set(['restorePlan', 'restoreToPoint']);

/**
 * The calls whose form opens again with a refusal's detail, whatever its status: a switchover onto a
 * member that leads already (400) or lags (409) is said in the form the person chooses again in.
 */
export const refusalsShownInline: ReadonlySet<string> = new Set(['switchover']);

/**
 * A 400's field errors as sentences. A schema's fragment ("must not be blank") is said with its
 * field; a message that is a sentence of its own stands alone.
 */
function fieldMessages(errors: Record<string, string[]>): string {
  return Object.entries(errors)
    .flatMap(([field, messages]) =>
      messages.map((message) => (/^[a-z]/.test(message) && field !== '$' ? `${field} ${message.replace(/\.?$/, '.')}` : message)),
    )
    .join(' ');
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
  if (status === 400 && problemsShownInline.has(action.meta.arg.endpointName)) return;
  if ((status === 400 || status === 409) && refusalsShownInline.has(action.meta.arg.endpointName)) return;
  const problem = problemOf(action.payload);
  const fields = status === 400 && !problem?.detail && problem?.errors && Object.keys(problem.errors).length > 0 ? problem.errors : undefined;
  // One message per failure: the form already says what is wrong with which field.
  if (fields && fieldErrorsShownInline.has(action.meta.arg.endpointName)) return;
  // Elsewhere the fields' own words, never the generic 'One or more validation errors occurred.'
  const said = fields ? fieldMessages(fields) : problemText(action.payload);
  // A fault of the server's own comes with the id its log lines carry, for whoever looks them up.
  const requestId = status !== undefined && status >= 500 ? problemOf(action.payload)?.requestId : undefined;
  const detail = requestId ? `${(said ?? 'The server failed').replace(/([^.!?])$/, '$1.')} Request id: ${requestId}` : said;
  yield put(pushToast({ status: 'error', summary: 'Request failed', detail }));
}
