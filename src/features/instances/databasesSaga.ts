import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, takeLeading } from 'redux-saga/effects';
import type { Instance } from '../../../contracts/instances';
import { callMutation } from '../../api/callMutation';
import { showModal } from '../ui/showModal';
import { databasesApi, rotatedSecretKey, superuserSecretKey } from './databasesApi';

type InstanceRef = Pick<Instance, 'id' | 'name'>;

export const databaseDropRequested = createAction<{ instance: InstanceRef; name: string }>('databases/dropRequested');
export const roleDropRequested = createAction<{ instance: InstanceRef; name: string }>('databases/roleDropRequested');
export const superuserRevealRequested = createAction<{ instance: InstanceRef }>('databases/superuserRevealRequested');
export const ownerRotationRequested = createAction<{ instance: InstanceRef }>('databases/ownerRotationRequested');

/** Confirm-then-act flows of the connection and the databases and roles sections. */
export function* databasesSaga(): SagaIterator {
  // Leading: a second click while the question is open changes nothing.
  yield takeLeading(databaseDropRequested.type, dropDatabase);
  yield takeLeading(roleDropRequested.type, dropRole);
  yield takeLeading(superuserRevealRequested.type, revealSuperuser);
  yield takeLeading(ownerRotationRequested.type, rotateOwner);
}

function* confirmed(title: string, description: string, confirmLabel: string): SagaIterator<boolean> {
  const answer = yield call(showModal, { title, description, component: 'confirm', props: { confirmLabel, destructive: true } });
  return answer === true;
}

export function* dropDatabase({ payload: { instance, name } }: ReturnType<typeof databaseDropRequested>): SagaIterator {
  const yes = yield call(confirmed, `Drop database ${name}?`, `Its connections are ended and everything in it on ${instance.name} is deleted. This cannot be undone.`, 'Drop');
  if (!yes) return;
  yield call(callMutation, databasesApi.endpoints.dropDatabase.initiate({ instanceId: instance.id, name }, { track: false }));
}

export function* dropRole({ payload: { instance, name } }: ReturnType<typeof roleDropRequested>): SagaIterator {
  const yes = yield call(confirmed, `Drop role ${name}?`, `What it owns on ${instance.name} goes to the owner role, and its privileges are revoked.`, 'Drop');
  if (!yes) return;
  yield call(callMutation, databasesApi.endpoints.dropInstanceRole.initiate({ instanceId: instance.id, name }, { track: false }));
}

export function* revealSuperuser({ payload: { instance } }: ReturnType<typeof superuserRevealRequested>): SagaIterator {
  const yes = yield call(
    confirmed,
    `Reveal the superuser password of ${instance.name}?`,
    "The superuser can read and write the host's files and run programs on it. Use the owner role for everything else; revealing this is recorded as a dangerous action.",
    'Reveal',
  );
  if (!yes) return;
  // The section shows the answer: it reads the same mutation by its cache key.
  yield call(callMutation, databasesApi.endpoints.revealSuperuserPassword.initiate(instance.id, { fixedCacheKey: superuserSecretKey(instance.id) }));
}

export function* rotateOwner({ payload: { instance } }: ReturnType<typeof ownerRotationRequested>): SagaIterator {
  const yes = yield call(confirmed, `Rotate the password of ${instance.name}?`, 'Clients that use the current password cannot connect again until they get the new one.', 'Rotate');
  if (!yes) return;
  yield call(callMutation, databasesApi.endpoints.rotateOwnerPassword.initiate(instance.id, { fixedCacheKey: rotatedSecretKey(instance.id) }));
}
