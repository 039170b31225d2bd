import { createSlice } from '@reduxjs/toolkit';
import type { BackupDeletedPayload, BackupUpdatedPayload } from '../../../contracts/backups';
import type { RootState } from '../../app/store';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { backupsApi } from './backupsApi';

/**
 * Verifications asked for from this browser and not answered yet, by backup id, each with the
 * time of the verification the backup had when asked (null: none). The answer is a backup
 * whose verification differs from that one. A slice, so "Verifying…" survives leaving the screen.
 */
export interface BackupsState {
  verifying: Record<string, string | null>;
}

const initialState: BackupsState = { verifying: {} };

const { verifyBackup } = backupsApi.endpoints;

const isBackupEvent = (action: { type: string }): action is HubEventAction<BackupUpdatedPayload> =>
  action.type === hubEventType('BackupUpdated') || action.type === hubEventType('BackupCompleted');
const isBackupDeleted = (action: { type: string }): action is HubEventAction<BackupDeletedPayload> =>
  action.type === hubEventType('BackupDeleted');

export const backupsSlice = createSlice({
  name: 'backups',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addMatcher(verifyBackup.matchPending, (state, { meta: { arg } }) => {
        state.verifying[arg.originalArgs.id] = arg.originalArgs.verification?.at ?? null;
      })
      .addMatcher(verifyBackup.matchRejected, (state, { meta: { arg } }) => {
        delete state.verifying[arg.originalArgs.id];
      })
      .addMatcher(isBackupEvent, (state, { payload: { backup } }) => {
        const before = state.verifying[backup.id];
        if (before !== undefined && backup.verification && backup.verification.at !== before) delete state.verifying[backup.id];
      })
      .addMatcher(isBackupDeleted, (state, { payload: { id } }) => {
        delete state.verifying[id];
      });
  },
});

export const selectVerifying = (state: RootState) => state.backups.verifying;
