import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, put, takeEvery, takeLeading } from 'redux-saga/effects';
import type { GroupChangedPayload } from '../../../contracts/hub';
import type { Group, GroupMember } from '../../../contracts/groups';
import { routes } from '../../../contracts/routes';
import { callMutation } from '../../api/callMutation';
import { errorStatus } from '../../api/problemText';
import type { NavigationDeps } from '../../app/deps';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { groupsApi, groupTags } from './groupsApi';

type GroupRef = Pick<Group, 'id' | 'name'>;

export const memberRemovalRequested = createAction<{ group: GroupRef; member: Pick<GroupMember, 'id' | 'email'> }>(
  'groups/memberRemovalRequested',
);
export const groupDeletionRequested = createAction<{ group: GroupRef }>('groups/groupDeletionRequested');

export function* groupsSaga(deps: Pick<NavigationDeps, 'navigate'>): SagaIterator {
  yield takeLeading(memberRemovalRequested.type, removeMember);
  yield takeLeading(groupDeletionRequested.type, deleteGroup, deps);
  yield takeEvery(hubEventType('GroupChanged'), refreshGroup);
}

/** Someone changed a group: its lists, and the group itself unless it is gone, are stale. */
export function* refreshGroup({ payload: { id, change } }: HubEventAction<GroupChangedPayload>): SagaIterator {
  const tags = {
    created: [groupTags.list],
    updated: [groupTags.group(id), groupTags.list, groupTags.profile],
    deleted: [groupTags.list, groupTags.profile],
    members: [groupTags.group(id), groupTags.members(id), groupTags.available(id), groupTags.list, groupTags.profile],
  }[change];
  yield put(groupsApi.util.invalidateTags(tags));
}

export function* removeMember({ payload: { group, member } }: ReturnType<typeof memberRemovalRequested>): SagaIterator {
  const confirmed = yield call(showModal, {
    title: `Remove ${member.email} from ${group.name}?`,
    description: 'They lose access to the instances of this group.',
    component: 'confirm',
    props: { confirmLabel: 'Remove', destructive: true },
  });
  if (confirmed !== true) return;
  yield call(callMutation, groupsApi.endpoints.removeMember.initiate({ groupId: group.id, userId: member.id }, { track: false }));
}

/**
 * Delete after a yes. A group that still has instances is refused (409): then the choice is
 * to move its instances out of any group and delete, or to keep it.
 */
export function* deleteGroup(
  { navigate }: Pick<NavigationDeps, 'navigate'>,
  { payload: { group } }: ReturnType<typeof groupDeletionRequested>,
): SagaIterator {
  const confirmed = yield call(showModal, {
    title: `Delete group ${group.name}?`,
    description: 'Its members lose access to its instances through it. This cannot be undone.',
    component: 'confirm',
    props: { confirmLabel: 'Delete', destructive: true },
  });
  if (confirmed !== true) return;

  const deleteIt = (moveInstances: boolean) =>
    call(callMutation, groupsApi.endpoints.deleteGroup.initiate({ groupId: group.id, moveInstances }, { track: false }));
  let outcome = yield deleteIt(false);
  if (errorStatus(outcome.error) === 409) {
    const move = yield call(showModal, {
      title: `${group.name} still has instances`,
      description: 'Its instances can be moved out of any group first; they keep running and stay visible to admins.',
      component: 'confirm',
      props: { confirmLabel: 'Move instances to no group and delete', destructive: true },
    });
    if (move !== true) return;
    outcome = yield deleteIt(true);
  }
  if (!outcome.error) yield call(navigate, routes.groups.path);
}
