import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, put, takeEvery, takeLeading } from 'redux-saga/effects';
import type { UserChangedPayload } from '../../../contracts/hub';
import { roleRank, type Role } from '../../../contracts/roles';
import type { User } from '../../../contracts/users';
import { callMutation } from '../../api/callMutation';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { usersApi } from './usersApi';

type UserRef = Pick<User, 'id' | 'email' | 'role'>;

/** The user screen's Save role: a demotion is confirmed first. */
export const roleChangeRequested = createAction<{ user: UserRef; role: Role }>('admin/roleChangeRequested');
/** Disable or enable: always confirmed, disabling ends every session of the user. */
export const accessChangeRequested = createAction<{ user: UserRef; disabled: boolean }>('admin/accessChangeRequested');
/** Lift the user's sign-in lockouts: confirmed first. */
export const unlockRequested = createAction<{ user: UserRef }>('admin/unlockRequested');
/** Turn the user's two-factor sign-in off (a lost phone): confirmed first. */
export const twoFactorResetRequested = createAction<{ user: UserRef }>('admin/twoFactorResetRequested');

export function* usersSaga(): SagaIterator {
  // Leading: a second click while the question is open changes nothing.
  yield takeLeading(roleChangeRequested.type, changeRole);
  yield takeLeading(accessChangeRequested.type, changeAccess);
  yield takeLeading(unlockRequested.type, unlock);
  yield takeLeading(twoFactorResetRequested.type, resetTwoFactor);
  yield takeEvery(hubEventType('UserChanged'), refreshUser);
}

/** Someone (maybe another admin) changed a user: what the screens show of them is stale. */
export function* refreshUser({ payload: { id } }: HubEventAction<UserChangedPayload>): SagaIterator {
  yield put(usersApi.util.invalidateTags([{ type: 'User', id }, { type: 'User', id: 'LIST' }]));
}

export function* changeRole({ payload: { user, role } }: ReturnType<typeof roleChangeRequested>): SagaIterator {
  if (roleRank[role] < roleRank[user.role]) {
    const confirmed = yield call(showModal, {
      title: `Demote ${user.email}?`,
      description: `As ${role} they can no longer manage users, and they see only the groups they are a member of.`,
      component: 'confirm',
      props: { confirmLabel: 'Demote', destructive: true },
    });
    if (confirmed !== true) return;
  }
  yield call(callMutation, usersApi.endpoints.updateUser.initiate({ id: user.id, role }, { track: false }));
}

export function* changeAccess({ payload: { user, disabled } }: ReturnType<typeof accessChangeRequested>): SagaIterator {
  const confirmed = yield call(
    showModal,
    disabled
      ? {
          title: `Disable ${user.email}?`,
          description: 'They can no longer sign in, and all their sessions end now.',
          component: 'confirm',
          props: { confirmLabel: 'Disable', destructive: true },
        }
      : {
          title: `Enable ${user.email}?`,
          description: 'They can sign in again.',
          component: 'confirm',
          props: { confirmLabel: 'Enable' },
        },
  );
  if (confirmed !== true) return;
  yield call(callMutation, usersApi.endpoints.updateUser.initiate({ id: user.id, disabled }, { track: false }));
}

export function* unlock({ payload: { user } }: ReturnType<typeof unlockRequested>): SagaIterator {
  const confirmed = yield call(showModal, {
    title: `Unlock sign-in for ${user.email}?`,
    description: 'Lifts the lockout after too many failed sign-ins, from every address, and forgets the failures.',
    component: 'confirm',
    props: { confirmLabel: 'Unlock' },
  });
  if (confirmed !== true) return;
  yield call(callMutation, usersApi.endpoints.unlockUser.initiate({ id: user.id, email: user.email }, { track: false }));
}

export function* resetTwoFactor({ payload: { user } }: ReturnType<typeof twoFactorResetRequested>): SagaIterator {
  const confirmed = yield call(showModal, {
    title: `Reset two-factor for ${user.email}?`,
    description:
      'Two-factor sign-in is turned off and their authenticator key and recovery codes stop working; they sign in with the password alone until they enrol again. Do this only when you know it is them (a lost phone).',
    component: 'confirm',
    props: { confirmLabel: 'Reset two-factor', destructive: true },
  });
  if (confirmed !== true) return;
  yield call(callMutation, usersApi.endpoints.resetUserTwoFactor.initiate(user.id, { track: false }));
}
