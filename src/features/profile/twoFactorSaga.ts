import { createAction } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SagaIterator } from 'redux-saga';
import { call, takeLeading } from 'redux-saga/effects';
import type { TwoFactorRequest } from '../../../contracts/auth';
import { callMutation } from '../../api/callMutation';
import { errorStatus } from '../../api/problemText';
import { fieldErrors, type FieldErrors } from '../../components/fieldErrors';
import { authApi } from '../auth/authApi';
import { showModal } from '../ui/showModal';
import { isIdentityProof, type ConfirmIdentityProps } from './ConfirmIdentityModal';

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

/**
 * Asks for the password (or a code), then makes the change; a wrong answer asks again with the
 * server's words beside the field, until the person gets it right or cancels.
 */
function* withIdentity(
  question: { title: string; description: string; confirmLabel: string },
  change: TwoFactorRequest,
  options: { fixedCacheKey?: string },
): SagaIterator {
  let errors: FieldErrors | undefined;
  for (;;) {
    const proof: unknown = yield call(showModal, {
      title: question.title,
      description: question.description,
      component: 'confirmIdentity',
      props: { confirmLabel: question.confirmLabel, destructive: true, ...(errors && { errors }) } satisfies ConfirmIdentityProps,
    });
    if (!isIdentityProof(proof)) return;
    const cache = options.fixedCacheKey ? { fixedCacheKey: options.fixedCacheKey } : { track: false };
    const outcome: { error?: FetchBaseQueryError } = yield call(
      callMutation,
      authApi.endpoints.twoFactor.initiate({ ...change, ...proof }, cache),
    );
    if (!outcome.error || errorStatus(outcome.error) !== 400) return;
    const said = fieldErrors(outcome.error);
    if (!said.currentPassword && !said.twoFactorCode) return;
    errors = said;
  }
}

export function* resetRecoveryCodes(): SagaIterator {
  yield call(
    withIdentity,
    {
      title: 'Reset recovery codes?',
      description:
        'Your current recovery codes stop working at once. You get ten new ones, shown once. Enter your password to confirm it is you.',
      confirmLabel: 'Reset codes',
    },
    { resetRecoveryCodes: true },
    { fixedCacheKey: recoveryCodesKey },
  );
}

export function* disableTwoFactor(): SagaIterator {
  yield call(
    withIdentity,
    {
      title: 'Disable two-factor authentication?',
      description:
        'Signing in will need only your password. Your authenticator app and recovery codes stop working. Enter your password to confirm it is you.',
      confirmLabel: 'Disable',
    },
    { enable: false },
    {},
  );
}
