import type { UnknownAction } from '@reduxjs/toolkit';
import { authApi } from '../../../../src/features/auth/authApi';
import { authSlice, userCleared, type AuthState } from '../../../../src/features/auth/authSlice';
import { admin } from '../../fixtures';
import { reduceFrozen } from '../../reducerTester';

const reducer = authSlice.reducer;
const unknown: AuthState = { user: null, status: 'unknown' };
const signedIn: AuthState = { user: admin, status: 'authenticated' };

// Actions shaped exactly as RTK Query dispatches them, built from its own matchers' thunk types.
const meArg = { type: 'query', endpointName: 'me', originalArgs: undefined, queryCacheKey: 'me(undefined)' };
const meFulfilled = (user = admin): UnknownAction => ({
  type: 'api/executeQuery/fulfilled',
  payload: user,
  meta: { arg: meArg, requestId: 'r1', requestStatus: 'fulfilled', fulfilledTimeStamp: 1, baseQueryMeta: {} },
});
const meRejected = (status: number, extra: Record<string, unknown> = {}): UnknownAction => ({
  type: 'api/executeQuery/rejected',
  payload: { status, data: { type: 'about:blank', title: 'x', status } },
  error: { message: 'Rejected' },
  meta: { arg: meArg, requestId: 'r1', requestStatus: 'rejected', rejectedWithValue: true, aborted: false, condition: false, ...extra },
});

describe('authSlice', () => {
  it('matches what RTK Query dispatches', () => {
    expect(authApi.endpoints.me.matchFulfilled(meFulfilled())).toBe(true);
    expect(authApi.endpoints.me.matchRejected(meRejected(401))).toBe(true);
  });

  it('starts with the user unknown', () => {
    expect(reducer(undefined, { type: '@@init' })).toEqual(unknown);
  });

  it('stores the user when the current-user call answers', () => {
    expect(reduceFrozen(reducer, unknown, meFulfilled())).toEqual(signedIn);
  });

  it('clears the user on a 401 from the current-user call', () => {
    expect(reduceFrozen(reducer, signedIn, meRejected(401))).toEqual({ user: null, status: 'anonymous' });
  });

  it('keeps a known user when the current-user call fails otherwise', () => {
    expect(reduceFrozen(reducer, signedIn, meRejected(503))).toEqual(signedIn);
  });

  it('does not sign out when the first call fails otherwise: the session is still unknown, not gone', () => {
    expect(reduceFrozen(reducer, unknown, meRejected(503))).toEqual(unknown);
  });

  it('ignores a call skipped because its answer was cached or in flight', () => {
    expect(reduceFrozen(reducer, signedIn, meRejected(401, { condition: true }))).toEqual(signedIn);
  });

  it('clears the user on userCleared', () => {
    expect(reduceFrozen(reducer, signedIn, userCleared())).toEqual({ user: null, status: 'anonymous' });
  });
});
