import { createSlice, nanoid, type PayloadAction } from '@reduxjs/toolkit';

export type ToastStatus = 'success' | 'error' | 'info' | 'warning';

export interface Toast {
  id: string;
  status: ToastStatus;
  summary: string;
  detail?: string;
}

export interface ModalRequest {
  title: string;
  description?: string;
  /** A key of the modal registry: the store holds names and plain data, never components. */
  component: string;
  props?: Record<string, unknown>;
}

export interface Modal extends Required<Pick<ModalRequest, 'props'>>, Omit<ModalRequest, 'props'> {
  id: string;
}

export interface UiState {
  modal: Modal | null;
  toasts: Toast[];
}

const sameWords = (a: Toast, b: Toast) => a.status === b.status && a.summary === b.summary && a.detail === b.detail;

/** Older toasts give way so a burst of failures cannot cover the page. */
export const maxToasts = 5;

const initialState: UiState = { modal: null, toasts: [] };

export const uiSlice = createSlice({
  name: 'ui',
  initialState,
  reducers: {
    openModal: {
      reducer(state, { payload }: PayloadAction<Modal>) {
        state.modal = payload;
      },
      prepare: (request: ModalRequest) => ({ payload: { props: {}, ...request, id: nanoid() } }),
    },
    /** The payload is the modal's result, handed back to whoever opened it (see showModal). */
    closeModal: {
      reducer(state) {
        state.modal = null;
      },
      prepare: (result?: unknown) => ({ payload: result }),
    },
    pushToast: {
      reducer(state, { payload }: PayloadAction<Toast>) {
        // The same words again (a failed list asked again when its hub group is joined, say) replace
        // the toast on show instead of stacking its twin: one message per failure.
        state.toasts = state.toasts.filter((toast) => !sameWords(toast, payload));
        state.toasts.push(payload);
        if (state.toasts.length > maxToasts) state.toasts.splice(0, state.toasts.length - maxToasts);
      },
      prepare: (toast: Omit<Toast, 'id'>) => ({ payload: { ...toast, id: nanoid() } }),
    },
    dismissToast(state, { payload: id }: PayloadAction<string>) {
      state.toasts = state.toasts.filter((toast) => toast.id !== id);
    },
  },
});

export const { openModal, closeModal, pushToast, dismissToast } = uiSlice.actions;
