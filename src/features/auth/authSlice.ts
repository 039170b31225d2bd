import { createSlice, isAnyOf } from '@reduxjs/toolkit';
import type { CurrentUser } from '../../../contracts/auth';
import { errorStatus } from '../../api/problemText';
import { authApi } from './authApi';

/** 'unknown' until the first current-user call answers (SPEC §4). */
export type AuthStatus = 'unknown' | 'authenticated' | 'anonymous';

export interface AuthState {
  user: CurrentUser | null;
  status: AuthStatus;
}

const initialState: AuthState = { user: null, status: 'unknown' };

const signedOut = (state: AuthState) => {
  state.user = null;
  state.status = 'anonymous';
};

export const authSlice = createSlice({
  name: 'auth',
  initialState,
  reducers: {
    userCleared: signedOut,
  },
  extraReducers: (builder) => {
    builder
      .addMatcher(
        isAnyOf(authApi.endpoints.me.matchFulfilled, authApi.endpoints.login.matchFulfilled),
        (state, { payload }) => {
          state.user = payload;
          state.status = 'authenticated';
        },
      )
      .addMatcher(authApi.endpoints.logout.matchFulfilled, signedOut)
      .addMatcher(authApi.endpoints.me.matchRejected, (state, action) => {
        // Skipped because the answer is cached or already on its way: nothing new is known.
        if (action.meta.condition) return;
        // Only a 401 says there is no session. Another failure (server down) says nothing about
        // it: a known user stays signed in, and an unknown one stays unknown, so the next page
        // load or sign-in screen asks again instead of the session being dropped.
        if (errorStatus(action.payload) === 401) signedOut(state);
      });
  },
});

export const { userCleared } = authSlice.actions;
