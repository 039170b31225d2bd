import type { RootState } from '../../app/rootReducer';

export const selectModal = (state: RootState) => state.ui.modal;
export const selectToasts = (state: RootState) => state.ui.toasts;
