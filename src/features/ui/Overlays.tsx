import { GlobalModal } from './GlobalModal';
import { ToastStack } from './ToastStack';

/** Everything that floats above the screens: the global modal and the toasts. */
export function Overlays() {
  return (
    <>
      <GlobalModal />
      <ToastStack />
    </>
  );
}
