import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { LogEntry } from '../../../contracts/logs';
import type { LogFilterArgs } from './logsApi';

/** Why new entries are held back instead of shown: the reader points at, selected or scrolled away from rows. */
export type HoldReason = 'hover' | 'selection' | 'scrolled';

export interface LogsTailState {
  live: boolean;
  /** The filters of the view being tailed; null while no log view is open. */
  filters: LogFilterArgs | null;
  holds: HoldReason[];
  /** Arrived and shown above the loaded pages, newest first. */
  shown: LogEntry[];
  /** Arrived while held, newest first; shown when the last hold is released. */
  held: LogEntry[];
}

/** A view keeps at most this many live entries (the oldest go): enough to scroll, bounded memory. */
export const maxTailEntries = 100_000;

const initialState: LogsTailState = { live: true, filters: null, holds: [], shown: [], held: [] };

const release = (state: LogsTailState) => {
  state.shown = [...state.held, ...state.shown].slice(0, maxTailEntries);
  state.held = [];
};

/** The live tail of the log view (DESIGN §9: UI state that events feed). */
export const logsTailSlice = createSlice({
  name: 'logsTail',
  initialState,
  reducers: {
    tailOpened(state, action: PayloadAction<LogFilterArgs>) {
      state.filters = action.payload;
      state.shown = [];
      state.held = [];
      state.holds = [];
    },
    tailClosed(state) {
      state.filters = null;
      state.shown = [];
      state.held = [];
      state.holds = [];
    },
    liveToggled(state, action: PayloadAction<boolean>) {
      state.live = action.payload;
      if (!action.payload) state.held = [];
    },
    /** Entries of the tailed view, oldest first (as LogsAppended carries them). */
    entriesArrived(state, action: PayloadAction<LogEntry[]>) {
      // A view joined to an instance's logs and to the whole scope hears some entries twice.
      const known = new Set([...state.shown, ...state.held].slice(0, 1000).map((entry) => entry.id));
      const newestFirst = action.payload.filter((entry) => !known.has(entry.id)).reverse();
      if (state.holds.length > 0) state.held = [...newestFirst, ...state.held].slice(0, maxTailEntries);
      else state.shown = [...newestFirst, ...state.shown].slice(0, maxTailEntries);
    },
    tailHeld(state, action: PayloadAction<HoldReason>) {
      if (!state.holds.includes(action.payload)) state.holds.push(action.payload);
    },
    tailReleased(state, action: PayloadAction<HoldReason>) {
      state.holds = state.holds.filter((reason) => reason !== action.payload);
      if (state.holds.length === 0) release(state);
    },
  },
});

export const { tailOpened, tailClosed, liveToggled, entriesArrived, tailHeld, tailReleased } = logsTailSlice.actions;
