import {
  closeModal,
  dismissToast,
  maxToasts,
  openModal,
  pushToast,
  uiSlice,
  type UiState,
} from '../../../../src/features/ui/uiSlice';
import { reduceFrozen } from '../../reducerTester';

const reducer = uiSlice.reducer;
const empty: UiState = { modal: null, toasts: [] };

describe('uiSlice', () => {
  it('opens one modal with its title, description, component key and props', () => {
    const state = reduceFrozen(
      reducer,
      empty,
      openModal({ title: 'Delete group?', description: 'It has 3 instances.', component: 'confirm', props: { destructive: true } }),
    );
    expect(state.modal).toEqual({
      id: expect.any(String),
      title: 'Delete group?',
      description: 'It has 3 instances.',
      component: 'confirm',
      props: { destructive: true },
    });
  });

  it('gives a modal opened without props an empty props object', () => {
    expect(reduceFrozen(reducer, empty, openModal({ title: 'T', component: 'confirm' })).modal?.props).toEqual({});
  });

  it('closes the modal and carries the result in the action', () => {
    const opened = reduceFrozen(reducer, empty, openModal({ title: 'T', component: 'confirm' }));
    const action = closeModal(true);
    expect(action.payload).toBe(true);
    expect(reduceFrozen(reducer, opened, action).modal).toBeNull();
  });

  it('pushes toasts with fresh ids and dismisses one by id', () => {
    const state = reduceFrozen(
      reducer,
      empty,
      pushToast({ status: 'error', summary: 'Request failed', detail: 'Group name taken' }),
      pushToast({ status: 'success', summary: 'Saved' }),
    );
    expect(state.toasts.map((toast) => toast.summary)).toEqual(['Request failed', 'Saved']);
    expect(state.toasts[0]).toEqual({ id: expect.any(String), status: 'error', summary: 'Request failed', detail: 'Group name taken' });
    expect(state.toasts[0].id).not.toBe(state.toasts[1].id);

    const after = reduceFrozen(reducer, state, dismissToast(state.toasts[0].id));
    expect(after.toasts.map((toast) => toast.summary)).toEqual(['Saved']);
  });

  it('shows a toast said again once, as the newest, instead of stacking its twin', () => {
    const failed = pushToast({ status: 'error', summary: 'Request failed', detail: 'page must be <= 1000000.' });
    const again = pushToast({ status: 'error', summary: 'Request failed', detail: 'page must be <= 1000000.' });
    const state = reduceFrozen(reducer, empty, failed, pushToast({ status: 'success', summary: 'Saved' }), again);
    expect(state.toasts.map((toast) => [toast.summary, toast.detail])).toEqual([
      ['Saved', undefined],
      ['Request failed', 'page must be <= 1000000.'],
    ]);
    // A fresh id: its lifetime starts again.
    expect(state.toasts[1].id).toBe(again.payload.id);
    // Other words, or another kind, are another message.
    const other = reduceFrozen(reducer, state, pushToast({ status: 'error', summary: 'Request failed', detail: 'Group name taken' }), pushToast({ status: 'warning', summary: 'Saved' }));
    expect(other.toasts).toHaveLength(4);
  });

  it(`keeps only the newest ${maxToasts} toasts`, () => {
    const pushes = Array.from({ length: maxToasts + 2 }, (_, i) => pushToast({ status: 'info', summary: `t${i}` }));
    const state = reduceFrozen(reducer, empty, ...pushes);
    expect(state.toasts.map((toast) => toast.summary)).toEqual(['t2', 't3', 't4', 't5', 't6']);
  });
});
