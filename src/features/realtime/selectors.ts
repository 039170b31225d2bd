import type { RootState } from '../../app/rootReducer';

export const selectConnection = (state: RootState) => state.realtime.connection;
export const selectConnectionError = (state: RootState) => state.realtime.error;
export const selectJoinedGroups = (state: RootState) => state.realtime.joined;
export const selectRecentEvents = (state: RootState) => state.realtime.recent;
