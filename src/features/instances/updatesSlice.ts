import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { InstanceEventPayload, OperationCompletedPayload } from '../../../contracts/instances';
import type { InstanceType } from '../../../contracts/instanceValues';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { updatesApi } from './updatesApi';

/** An instance picked for an engine update, as it was when picked: it leaves the updatable list once done. */
export interface UpdateTarget {
  id: string;
  name: string;
  type: InstanceType;
  from: string | null;
  to: string;
}

export type UpdatePhase = 'queued' | 'updating' | 'done' | 'failed';

export interface UpdateProgress extends UpdateTarget {
  phase: UpdatePhase;
  error: string | null;
}

/** Updates started from this browser, by instance id. A slice, so the progress survives leaving the screen. */
export type InstancesUpdateState = Record<string, UpdateProgress>;

const initialState: InstancesUpdateState = {};

export const isUpdateRunning = (phase: UpdatePhase | undefined) => phase === 'queued' || phase === 'updating';

export const instancesUpdateSlice = createSlice({
  name: 'instancesUpdate',
  initialState,
  reducers: {
    updatesQueued(state, { payload }: PayloadAction<UpdateTarget[]>) {
      for (const target of payload) state[target.id] = { ...target, phase: 'queued', error: null };
    },
    /** The server took the update (202); events may already have moved it further. */
    updateAccepted(state, { payload: id }: PayloadAction<string>) {
      if (state[id]?.phase === 'queued') state[id].phase = 'updating';
    },
    updateRefused(state, { payload }: PayloadAction<{ id: string; error: string }>) {
      const entry = state[payload.id];
      if (entry) Object.assign(entry, { phase: 'failed', error: payload.error });
    },
    finishedCleared(state) {
      for (const [id, entry] of Object.entries(state)) if (!isUpdateRunning(entry.phase)) delete state[id];
    },
  },
  // Typed by the slice's own key, not by RootState: the root reducer imports this module.
  selectors: {
    selectUpdateProgress: (state) => state,
  },
  extraReducers: (builder) => {
    builder
      .addMatcher(
        (action): action is HubEventAction<InstanceEventPayload> => action.type === hubEventType('InstanceUpdated'),
        (state, { payload: { instance } }) => {
          const entry = state[instance.id];
          if (entry?.phase === 'queued' && instance.operation?.kind === 'update') entry.phase = 'updating';
        },
      )
      .addMatcher(
        (action): action is HubEventAction<OperationCompletedPayload> => action.type === hubEventType('OperationCompleted'),
        // The server's word on the outcome: it may beat the 202 answer, or follow the list making it look done.
        (state, { payload: { instanceId, kind, ok, error } }) => {
          const entry = state[instanceId];
          if (kind !== 'update' || !entry) return;
          entry.phase = ok ? 'done' : 'failed';
          entry.error = ok ? null : (error ?? 'The update failed.');
        },
      )
      // An instance that left the updatable list runs the newest engine: done, even if the event
      // was missed while the connection was down (the reconnect refetches the list).
      .addMatcher(updatesApi.endpoints.updatableInstances.matchFulfilled, (state, { payload }) => {
        const listed = new Set(payload.map(({ instance }) => instance.id));
        for (const [id, entry] of Object.entries(state)) if (entry.phase === 'updating' && !listed.has(id)) entry.phase = 'done';
      });
  },
});

export const { updatesQueued, updateAccepted, updateRefused, finishedCleared } = instancesUpdateSlice.actions;

export const { selectUpdateProgress } = instancesUpdateSlice.selectors;
