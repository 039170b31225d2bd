import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { all, call, put, select, takeEvery, takeLeading } from 'redux-saga/effects';
import type {
  Instance,
  InstanceEventPayload,
  InstanceStatusChangedPayload,
  OperationCompletedPayload,
} from '../../../contracts/instances';
import { routes } from '../../../contracts/routes';
import { callMutation } from '../../api/callMutation';
import { errorStatus } from '../../api/problemText';
import type { NavigationDeps } from '../../app/deps';
import type { RootState } from '../../app/rootReducer';
import { groupKey, hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { pushToast } from '../ui/uiSlice';
import { actionLabels, canRun, operationDone, type InstanceAction } from './instanceActions';
import { instancesApi, instanceTags, patchCachedInstance } from './instancesApi';
import { backupsApi } from '../backups/backupsApi';

type InstanceRef = Pick<Instance, 'id' | 'name' | 'status'>;

/** A button of the instance screen; stop and restart are confirmed first. */
export const instanceActionRequested = createAction<{ instance: InstanceRef; action: InstanceAction }>(
  'instances/actionRequested',
);
/** What the list's toolbar does to every selected instance, after one confirmation naming them. */
export type BulkAction = 'start' | 'stop' | 'restart' | 'backup' | 'delete';
export const bulkActionRequested = createAction<{ instances: InstanceRef[]; action: BulkAction }>('instances/bulkActionRequested');
export const instanceDeletionRequested = createAction<{ instance: InstanceRef }>('instances/deletionRequested');

export function* instancesSaga(deps: Pick<NavigationDeps, 'navigate'>): SagaIterator {
  // Leading: a second click while the question is open changes nothing.
  yield takeLeading(instanceActionRequested.type, runAction);
  yield takeLeading(bulkActionRequested.type, runBulkAction);
  yield takeLeading(instanceDeletionRequested.type, deleteInstance, deps);
  yield takeEvery([hubEventType('InstanceCreated'), hubEventType('InstanceDeleted')], refreshList);
  yield takeEvery(hubEventType('InstanceUpdated'), applyUpdate);
  yield takeEvery(hubEventType('InstanceStatusChanged'), applyStatus);
  yield takeEvery(hubEventType('OperationCompleted'), reportOperation);
}

// ---- What the person asks for ----

const confirmations: Partial<Record<InstanceAction, { description: string; destructive: boolean }>> = {
  stop: { description: 'Its clients are disconnected until it is started again.', destructive: true },
  restart: { description: 'Its clients are disconnected for as long as the restart takes.', destructive: false },
};

export function* runAction({ payload: { instance, action } }: ReturnType<typeof instanceActionRequested>): SagaIterator {
  const confirmation = confirmations[action];
  if (confirmation) {
    const confirmed = yield call(showModal, {
      title: `${actionLabels[action]} ${instance.name}?`,
      description: confirmation.description,
      component: 'confirm',
      props: { confirmLabel: actionLabels[action], destructive: confirmation.destructive },
    });
    if (confirmed !== true) return;
  }
  yield call(callMutation, instancesApi.endpoints.runInstanceAction.initiate({ id: instance.id, action }, { track: false }));
}

const plural = (n: number) => (n === 1 ? '1 instance' : `${n} instances`);

const bulkLooks: Record<BulkAction, { label: string; done: string; destructive: boolean; description?: string }> = {
  start: { label: 'Start', done: 'asked to start', destructive: false },
  stop: { label: 'Stop', done: 'asked to stop', destructive: true },
  restart: { label: 'Restart', done: 'asked to restart', destructive: false, description: 'Their clients are disconnected for as long as the restart takes.' },
  backup: { label: 'Back up', done: 'backing up', destructive: false, description: 'Each gets a database backup.' },
  delete: {
    label: 'Delete',
    done: 'deleted',
    destructive: true,
    description: 'Running ones are stopped first; their data directories are removed. This cannot be undone.',
  },
};

/** Which selected instances an action applies to; the rest are left as they are. */
const appliesTo = (action: BulkAction, instance: InstanceRef) =>
  action === 'backup' ? instance.status === 'running' : action === 'delete' ? true : canRun(action, instance.status);

/** One instance's request for a bulk action. */
function bulkRequest(action: BulkAction, instance: InstanceRef) {
  if (action === 'backup') return backupsApi.endpoints.takeBackup.initiate({ instanceId: instance.id, kind: 'database' }, { track: false });
  if (action === 'delete') return instancesApi.endpoints.deleteInstance.initiate({ id: instance.id, force: true }, { track: false });
  return instancesApi.endpoints.runInstanceAction.initiate({ id: instance.id, action }, { track: false });
}

export function* runBulkAction({ payload: { instances, action } }: ReturnType<typeof bulkActionRequested>): SagaIterator {
  const looks = bulkLooks[action];
  const chosen = instances.filter((instance) => appliesTo(action, instance));
  const skipped = instances.length - chosen.length;
  if (chosen.length === 0) {
    const why = action === 'backup' ? 'Only running instances can be backed up.' : `The selected instances are already ${action === 'start' ? 'running' : 'stopped'}.`;
    yield put(pushToast({ status: 'info', summary: `Nothing to ${looks.label.toLowerCase()}`, detail: why }));
    return;
  }
  const confirmed = yield call(showModal, {
    title: `${looks.label} ${plural(chosen.length)}?`,
    description: [
      chosen.map((instance) => instance.name).join(', '),
      skipped > 0 ? ` (${plural(skipped)} left as ${skipped === 1 ? 'it is' : 'they are'}).` : '.',
      looks.description ? ` ${looks.description}` : '',
    ].join(''),
    component: 'confirm',
    props: { confirmLabel: `${looks.label} ${plural(chosen.length)}`, destructive: looks.destructive },
  });
  if (confirmed !== true) return;
  // Each failure goes down the one error path with its own toast; the summary counts them.
  const outcomes: { error?: unknown }[] = yield all(chosen.map((instance) => call(callMutation, bulkRequest(action, instance))));
  const failed = chosen.filter((_, i) => outcomes[i].error);
  const succeeded = chosen.length - failed.length;
  yield put(
    pushToast({
      status: failed.length === 0 ? 'success' : succeeded === 0 ? 'error' : 'warning',
      summary: `${plural(succeeded)} ${looks.done}`,
      detail: failed.length > 0 ? `Refused: ${failed.map((instance) => instance.name).join(', ')}.` : undefined,
    }),
  );
}

/**
 * Delete after a yes. A running instance is deleted with force (stopped first), said so in the
 * question. If it started meanwhile the server refuses (409), and the person is asked again.
 */
export function* deleteInstance(
  { navigate }: Pick<NavigationDeps, 'navigate'>,
  { payload: { instance } }: ReturnType<typeof instanceDeletionRequested>,
): SagaIterator {
  const running = instance.status === 'running' || instance.status === 'offline';
  const confirmed = yield call(showModal, {
    title: `Delete ${instance.name}?`,
    description: running
      ? 'It is running: it will be stopped, then its data directory removed. This cannot be undone.'
      : 'Its data directory is removed. This cannot be undone.',
    component: 'confirm',
    props: { confirmLabel: running ? 'Stop and delete' : 'Delete', destructive: true },
  });
  if (confirmed !== true) return;

  const deleteIt = (force: boolean) =>
    call(callMutation, instancesApi.endpoints.deleteInstance.initiate({ id: instance.id, force }, { track: false }));
  let outcome = yield deleteIt(running);
  if (!running && errorStatus(outcome.error) === 409) {
    const force = yield call(showModal, {
      title: `${instance.name} is running`,
      description: 'It can be stopped first and then deleted. This cannot be undone.',
      component: 'confirm',
      props: { confirmLabel: 'Stop and delete', destructive: true },
    });
    if (force !== true) return;
    outcome = yield deleteIt(true);
  }
  if (!outcome.error) yield call(navigate, routes.instances.path);
}

// ---- What the hub tells ----

/** An instance appeared or went away: the lists are stale (which pages it lands on is the server's to say). */
export function* refreshList(): SagaIterator {
  yield put(instancesApi.util.invalidateTags([instanceTags.list]));
}

export function* applyUpdate({ payload: { instance } }: HubEventAction<InstanceEventPayload>): SagaIterator {
  yield put(patchCachedInstance(instance.id, (cached) => void (instance.version >= cached.version && Object.assign(cached, instance))));
  yield put(instancesApi.util.invalidateTags([instanceTags.members(instance.id), instanceTags.history(instance.id)]));
}

export function* applyStatus({ payload }: HubEventAction<InstanceStatusChangedPayload>): SagaIterator {
  const { id, status, statusReason, health, version } = payload;
  yield put(
    patchCachedInstance(id, (cached) => void (version >= cached.version && Object.assign(cached, { status, statusReason, health, version }))),
  );
  yield put(instancesApi.util.invalidateTags([instanceTags.members(id), instanceTags.history(id)]));
}

/** The cached instance by id, from its own entry or any cached list page. */
function cachedInstance(state: RootState, id: string): Instance | undefined {
  const own = instancesApi.endpoints.instance.select(id)(state).data;
  if (own) return own;
  for (const args of instancesApi.util.selectCachedArgsForQuery(state, 'instances')) {
    const row = instancesApi.endpoints.instances.select(args)(state).data?.items.find((item) => item.id === id);
    if (row) return row;
  }
  return undefined;
}

/** On screen: its own page is open, or the list is open and shows it. */
function isWatched(state: RootState, id: string): boolean {
  const joined = state.realtime.joined;
  if (joined[groupKey({ name: 'Instance', args: [id] })]) return true;
  return !!joined[groupKey({ name: 'Instances', args: [] })] && cachedInstance(state, id) !== undefined;
}

/**
 * An operation ended: the instance no longer waits for it, and whoever is looking at it is told
 * how it went. (The configuration saga refreshes what the operation may have changed of the configuration.)
 */
export function* reportOperation({ payload }: HubEventAction<OperationCompletedPayload>): SagaIterator {
  const { instanceId, kind, ok, error, detail } = payload;
  yield put(
    patchCachedInstance(instanceId, (cached) => {
      if (cached.operation?.kind === kind) cached.operation = null;
    }),
  );
  const state: RootState = yield select();
  if (!isWatched(state, instanceId)) return;
  const name = cachedInstance(state, instanceId)?.name ?? 'The instance';
  if (ok) {
    yield put(pushToast({ status: 'success', summary: `${name} ${operationDone[kind]}`, ...(detail && { detail }) }));
  } else {
    yield put(pushToast({ status: 'error', summary: `${name}: ${kind} failed`, detail: error ?? detail ?? undefined }));
  }
}

