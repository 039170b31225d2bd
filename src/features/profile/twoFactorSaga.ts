import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, takeLeading } from 'redux-saga/effects';
import { callMutation } from '../../api/callMutation';
import { authApi } from '../auth/authApi';
import { showModal } from '../ui/showModal';

/**
 * The two-factor calls whose answer holds new recovery codes share this key: the profile reads
 * the codes from there to show them once, and forgets them when it is left.
 */
export const recoveryCodesKey = 'twoFactor/recoveryCodes';

export const recoveryCodesResetRequested = createAction('profile/recoveryCodesResetRequested');
export const twoFactorDisableRequested = createAction('profile/twoFactorDisableRequested');

export function* twoFactorSaga(): SagaIterator {
  yield takeLeading(recoveryCodesResetRequested.type, resetRecoveryCodes);
  yield takeLeading(twoFactorDisableRequested.type, disableTwoFactor);
}

export function* resetRecoveryCodes(): SagaIterator {
  const confirmed = yield call(showModal, {
    title: 'Reset recovery codes?',
    description: 'Your current recovery codes stop working at once. You get ten new ones, shown once.',
    component: 'confirm',
    props: { confirmLabel: 'Reset codes', destructive: true },
  });
  if (confirmed !== true) return;
  yield call(callMutation, authApi.endpoints.twoFactor.initiate({ resetRecoveryCodes: true }, { fixedCacheKey: recoveryCodesKey }));
}

export function* disableTwoFactor(): SagaIterator {
  const confirmed = yield call(showModal, {
    title: 'Disable two-factor authentication?',
    description: 'Signing in will need only your password. Your authenticator app and recovery codes stop working.',
    component: 'confirm',
    props: { confirmLabel: 'Disable', destructive: true },
  });
  if (confirmed !== true) return;
  yield call(callMutation, authApi.endpoints.twoFactor.initiate({ enable: false }, { track: false }));
}
