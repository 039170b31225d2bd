import { ChakraProvider } from '@chakra-ui/react';
import { configureStore } from '@reduxjs/toolkit';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { Provider } from 'react-redux';
import createSagaMiddleware, { type SagaIterator } from 'redux-saga';
import { call } from 'redux-saga/effects';
import { headerBottomVar, PageHeader } from '../../../../src/components/PageHeader';
import { Overlays } from '../../../../src/features/ui/Overlays';
import { showModal } from '../../../../src/features/ui/showModal';
import { openModal, pushToast, uiSlice, type ModalRequest } from '../../../../src/features/ui/uiSlice';
import { system } from '../../../../src/theme/system';

/** The overlays (after a screen's content, if given) on a store of their own slice, with a saga middleware to run showModal on. */
function renderOverlays(screenContent?: ReactNode) {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureStore({
    reducer: { ui: uiSlice.reducer },
    middleware: (getDefaultMiddleware) => getDefaultMiddleware().concat(sagaMiddleware),
  });
  const { unmount } = render(
    <Provider store={store}>
      <ChakraProvider value={system}>
        {screenContent}
        <Overlays />
      </ChakraProvider>
    </Provider>,
  );
  const show = (request: ModalRequest) => sagaMiddleware.run(showModal, request).toPromise();
  const ask = (saga: () => SagaIterator<unknown>) => sagaMiddleware.run(saga).toPromise();
  return { store, show, ask, unmount };
}

const deleteGroup: ModalRequest = {
  title: 'Delete group?',
  description: 'Its 3 instances stay, without a group.',
  component: 'confirm',
  props: { confirmLabel: 'Delete', destructive: true },
};

describe('Overlays', () => {
  afterEach(() => jest.restoreAllMocks());

  it('shows a failure toast as an alert, another as a status, and dismisses one', async () => {
    const { store } = renderOverlays();
    const user = userEvent.setup();
    act(() => {
      store.dispatch(pushToast({ status: 'error', summary: 'Request failed', detail: 'Group name taken' }));
      store.dispatch(pushToast({ status: 'success', summary: 'Saved' }));
    });

    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Request failed');
    expect(alert).toHaveTextContent('Group name taken');
    expect(screen.getByRole('status')).toHaveTextContent('Saved');

    await user.click(within(alert).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(store.getState().ui.toasts.map((toast) => toast.summary)).toEqual(['Saved']);
  });

  it('lets toasts go by themselves after a while', () => {
    jest.useFakeTimers();
    try {
      const { store } = renderOverlays();
      act(() => {
        store.dispatch(pushToast({ status: 'success', summary: 'Saved' }));
      });
      expect(screen.getByRole('status')).toHaveTextContent('Saved');
      act(() => jest.advanceTimersByTime(10_000));
      expect(screen.queryByRole('status')).not.toBeInTheDocument();
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps toasts at top-center, below where the page header ends, and forgets that end with the header', () => {
    const { store, unmount } = renderOverlays(<PageHeader title="Instances" actions={<button type="button">Create instance</button>} />);
    act(() => {
      store.dispatch(pushToast({ status: 'error', summary: 'Request failed', detail: 'Group name taken' }));
    });
    const region = getComputedStyle(screen.getByRole('region', { name: 'Notifications' }));
    expect(region.position).toBe('fixed');
    expect(region.left).toBe('50%');
    expect(region.top).toContain(`var(${headerBottomVar}`);
    // jsdom lays nothing out, so the header ends at the page's top (a browser test measures real ones).
    expect(document.documentElement.style.getPropertyValue(headerBottomVar)).toBe('0px');
    unmount();
    expect(document.documentElement.style.getPropertyValue(headerBottomVar)).toBe('');
  });

  it('gives every kind of toast a dismiss button', async () => {
    const { store } = renderOverlays();
    const user = userEvent.setup();
    const statuses = ['success', 'info', 'warning', 'error'] as const;
    act(() => {
      for (const status of statuses) store.dispatch(pushToast({ status, summary: `A ${status}` }));
    });
    const region = within(screen.getByRole('region', { name: 'Notifications' }));
    expect(region.getAllByRole('button', { name: 'Dismiss' })).toHaveLength(statuses.length);

    for (const button of region.getAllByRole('button', { name: 'Dismiss' })) await user.click(button);
    expect(store.getState().ui.toasts).toEqual([]);
  });

  it('lets a success go sooner than a failure, which stays to be read', () => {
    jest.useFakeTimers();
    try {
      const { store } = renderOverlays();
      act(() => {
        store.dispatch(pushToast({ status: 'success', summary: 'Saved' }));
        store.dispatch(pushToast({ status: 'error', summary: 'Request failed', detail: 'The store is unreachable.' }));
      });
      act(() => jest.advanceTimersByTime(5_000));
      expect(screen.queryByRole('status')).not.toBeInTheDocument();
      expect(screen.getByRole('alert')).toHaveTextContent('The store is unreachable.');
      act(() => jest.advanceTimersByTime(5_000));
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    } finally {
      jest.useRealTimers();
    }
  });

  it('opens the global modal and reports what it was closed with', async () => {
    const { store, show } = renderOverlays();
    const user = userEvent.setup();

    let closing!: Promise<unknown>;
    act(() => {
      closing = show(deleteGroup);
    });
    const dialog = await screen.findByRole('dialog', { name: 'Delete group?' });
    expect(dialog).toHaveTextContent('Its 3 instances stay, without a group.');

    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));

    await expect(closing).resolves.toBe(true);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(store.getState().ui.modal).toBeNull();
  });

  it('reports no result when the modal is dismissed or replaced', async () => {
    const { store, show } = renderOverlays();
    const user = userEvent.setup();

    let dismissed!: Promise<unknown>;
    act(() => {
      dismissed = show(deleteGroup);
    });
    await user.click(await screen.findByRole('button', { name: 'Close' }));
    await expect(dismissed).resolves.toBeUndefined();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    let replaced!: Promise<unknown>;
    act(() => {
      replaced = show(deleteGroup);
    });
    await screen.findByRole('dialog', { name: 'Delete group?' });
    act(() => {
      store.dispatch(openModal({ title: 'Something else', component: 'confirm' }));
    });
    await expect(replaced).resolves.toBeUndefined();
    expect(await screen.findByRole('dialog', { name: 'Something else' })).toBeInTheDocument();
  });

  it('keeps a modal that opens the moment the last one closed, through the last one’s return of focus', async () => {
    const { store, ask } = renderOverlays(<button type="button">Delete row</button>);
    const user = userEvent.setup();
    screen.getByRole('button', { name: 'Delete row' }).focus();
    // A frame may come before the last dialog's deferred return of focus; here it always does.
    jest.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => {
      queueMicrotask(() => callback(performance.now()));
      return 0;
    });

    // The server answers at once: the next question opens before the first dialog hands focus back.
    let answers!: Promise<unknown>;
    act(() => {
      answers = ask(function* twoQuestions() {
        const first: unknown = yield call(showModal, deleteGroup);
        const second: unknown = yield call(showModal, { ...deleteGroup, title: 'Delete group anyway?', props: { confirmLabel: 'Delete anyway', destructive: true } });
        return [first, second];
      });
    });
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete group?' })).getByRole('button', { name: 'Delete' }));
    const anyway = await screen.findByRole('dialog', { name: 'Delete group anyway?' });
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));

    expect(store.getState().ui.modal?.title).toBe('Delete group anyway?');
    await waitFor(() => expect(anyway).toContainElement(document.activeElement as HTMLElement));
    await user.click(within(anyway).getByRole('button', { name: 'Delete anyway' }));
    await expect(answers).resolves.toEqual([true, true]);
  });
});
