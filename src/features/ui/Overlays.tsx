import { lazy, Suspense, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import { selectModal } from './selectors';
import { ToastStack } from './ToastStack';

/**
 * Only signed-in screens open modals, so the dialog and what it pulls in (focus trap, dismiss
 * layers, scroll lock, the modal bodies) load with the signed-in shell, not with the sign-in page.
 */
const GlobalModal = lazy(() => import(/* webpackChunkName: "shell" */ './GlobalModal').then(({ GlobalModal }) => ({ default: GlobalModal })));

/** Everything that floats above the screens: the global modal and the toasts. */
export function Overlays() {
  // Mounted with the first modal and kept, so that it can animate that modal and the next ones out.
  const [modalUsed, setModalUsed] = useState(false);
  const modalOpen = useAppSelector(selectModal) !== null;
  if (modalOpen && !modalUsed) setModalUsed(true);
  return (
    <>
      {modalUsed && (
        <Suspense fallback={null}>
          <GlobalModal />
        </Suspense>
      )}
      <ToastStack />
    </>
  );
}
