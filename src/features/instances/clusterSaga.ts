import { createAction } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SagaIterator } from 'redux-saga';
import { call, put, takeEvery, takeLeading } from 'redux-saga/effects';
import type { Instance, InstanceMember, OperationCompletedPayload, OperationKind } from '../../../contracts/instances';
import { callMutation } from '../../api/callMutation';
import { errorStatus, problemText } from '../../api/problemText';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { instancesApi, instanceTags, type MemberAction } from './instancesApi';
import { candidateLabel, isSwitchoverChoice, switchoverCandidates, type SwitchoverChoice, type SwitchoverModalProps } from './SwitchoverModal';

type ClusterRef = Pick<Instance, 'id' | 'name' | 'type'>;

// The buttons of a PostgreSQL cluster's members (DESIGN §12); each runs as an operation of the instance.
export const switchoverRequested = createAction<{ instance: ClusterRef; members: InstanceMember[] }>('cluster/switchoverRequested');
export const failoverRequested = createAction<{ instance: ClusterRef; ordinal: number }>('cluster/failoverRequested');
export const failoverPauseRequested = createAction<{ instance: ClusterRef; paused: boolean }>('cluster/failoverPauseRequested');
export const memberActionRequested = createAction<{ instance: ClusterRef; ordinal: number; action: MemberAction }>('cluster/memberActionRequested');

export const switchoverCancelRequested = createAction<{ instance: ClusterRef }>('cluster/switchoverCancelRequested');
export const memberAddRequested = createAction<{ instance: ClusterRef }>('cluster/memberAddRequested');
export const memberRemoveRequested = createAction<{ instance: ClusterRef; ordinal: number }>('cluster/memberRemoveRequested');

export function* clusterSaga(): SagaIterator {
  // Leading: a second click while the question is open changes nothing.
  yield takeLeading(switchoverRequested.type, switchover);
  yield takeLeading(failoverRequested.type, failover);
  yield takeLeading(switchoverCancelRequested.type, cancelSwitchover);
  yield takeLeading(failoverPauseRequested.type, setFailoverPaused);
  yield takeLeading(memberActionRequested.type, actOnMember);
  yield takeLeading(memberAddRequested.type, addMember);
  yield takeLeading(memberRemoveRequested.type, removeMember);
  yield takeEvery(hubEventType('OperationCompleted'), refreshMembers);
}

/**
 * Asks which replica leads next, then asks the server; a refusal it can explain (the member leads
 * already, it lags) asks again with the server's words, until it is accepted or cancelled.
 */
export function* switchover({ payload: { instance, members } }: ReturnType<typeof switchoverRequested>): SagaIterator {
  const candidates = switchoverCandidates(members);
  if (candidates.length === 0) return;
  let choice: SwitchoverChoice = { candidate: candidates[0].ordinal, force: false };
  let problem: string | undefined;
  for (;;) {
    const answer: unknown = yield call(showModal, {
      title: `Switch over ${instance.name}`,
      description:
        'The chosen replica becomes the leader and the leader rejoins as a replica. Clients of the read-write address are disconnected; connecting again reaches the new leader.',
      component: 'switchover',
      props: { ...choice, candidates: candidates.map((m) => ({ ordinal: m.ordinal, label: candidateLabel(m) })), ...(problem && { problem }) } satisfies SwitchoverModalProps,
    });
    if (!isSwitchoverChoice(answer)) return;
    choice = answer;
    const outcome: { error?: FetchBaseQueryError } = yield call(
      callMutation,
      instancesApi.endpoints.switchover.initiate({ id: instance.id, candidate: choice.candidate, ...(choice.force && { force: true }) }, { track: false }),
    );
    const status = errorStatus(outcome.error);
    if (status !== 400 && status !== 409) return;
    problem = problemText(outcome.error);
  }
}

/** A failover does not wait for the candidate to catch up: the question names what may be lost. */
export function* failover({ payload: { instance, ordinal } }: ReturnType<typeof failoverRequested>): SagaIterator {
  const confirmed = yield call(showModal, {
    title: `Fail ${instance.name} over to member ${ordinal}?`,
    description: `Member ${ordinal} becomes the leader at once, whatever the other members say. Commits the old leader had not sent to member ${ordinal} are lost.`,
    component: 'confirm',
    props: { confirmLabel: `Fail over to member ${ordinal}`, destructive: true },
  });
  if (confirmed !== true) return;
  yield call(callMutation, instancesApi.endpoints.failover.initiate({ id: instance.id, candidate: ordinal }, { track: false }));
}

export function* setFailoverPaused({ payload: { instance, paused } }: ReturnType<typeof failoverPauseRequested>): SagaIterator {
  yield call(callMutation, instancesApi.endpoints.setFailoverPaused.initiate({ id: instance.id, paused }, { track: false }));
}

/** Rebuilding throws the member's data away, so it is asked first; restarting one member leaves the others serving. */
export function* actOnMember({ payload: { instance, ordinal, action } }: ReturnType<typeof memberActionRequested>): SagaIterator {
  if (action === 'reinitialize') {
    const confirmed = yield call(showModal, {
      title: `Rebuild member ${ordinal} of ${instance.name}?`,
      description: `Its data is deleted and copied from the leader again. Member ${ordinal} serves no reads until the copy is done.`,
      component: 'confirm',
      props: { confirmLabel: `Rebuild member ${ordinal}`, destructive: true },
    });
    if (confirmed !== true) return;
  }
  yield call(callMutation, instancesApi.endpoints.memberAction.initiate({ id: instance.id, ordinal, action }, { track: false }));
}

/** A scheduled switchover is dropped at once: nothing changes that a second click could regret. */
export function* cancelSwitchover({ payload: { instance } }: ReturnType<typeof switchoverCancelRequested>): SagaIterator {
  yield call(callMutation, instancesApi.endpoints.cancelSwitchover.initiate({ id: instance.id }, { track: false }));
}

export function* addMember({ payload: { instance } }: ReturnType<typeof memberAddRequested>): SagaIterator {
  yield call(callMutation, instancesApi.endpoints.addClusterMember.initiate({ id: instance.id }, { track: false }));
}

/** Removing a member changes the quorum: asked first; the server refuses (and says why) one that would leave it unable to write. */
export function* removeMember({ payload: { instance, ordinal } }: ReturnType<typeof memberRemoveRequested>): SagaIterator {
  const confirmed = yield call(showModal, {
    title: `Remove member ${ordinal} of ${instance.name}?`,
    description:
      instance.type === 'pg'
        ? 'Its Patroni and postgres stop, the addresses forget it and its data folder is deleted. The cluster goes on with the members left.'
        : 'etcd forgets the member, its process stops and its data folder is deleted. The cluster then needs a majority of the members left to write.',
    component: 'confirm',
    props: { confirmLabel: `Remove member ${ordinal}`, destructive: true },
  });
  if (confirmed !== true) return;
  yield call(callMutation, instancesApi.endpoints.removeClusterMember.initiate({ id: instance.id, ordinal }, { track: false }));
}

// A member back from a restart or a rebuild may change nothing the health says, so no status event
// brings its new state: the end of the operation does.
const changesMembers: ReadonlySet<OperationKind> = new Set(['switchover', 'failover', 'restartMember', 'reinitializeMember', 'addMember', 'removeMember']);

export function* refreshMembers({ payload: { instanceId, kind } }: HubEventAction<OperationCompletedPayload>): SagaIterator {
  if (!changesMembers.has(kind)) return;
  yield put(instancesApi.util.invalidateTags([instanceTags.members(instanceId), instanceTags.history(instanceId)]));
}
