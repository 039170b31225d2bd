import { lazy, Suspense, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import type { RootState } from '../../app/rootReducer';
import { selectModal, selectToasts } from './selectors';

const ChakraFrame = lazy(() => import('./ChakraFrame').then(({ ChakraFrame }) => ({ default: ChakraFrame })));

const somethingToShow = (state: RootState) => selectToasts(state).length > 0 || selectModal(state) !== null;

/**
 * The overlays of a screen drawn without Chakra (sign-in): nothing until the first toast or modal,
 * then Chakra and the overlays load and stay, so that the next ones show at once.
 */
export function DeferredOverlays() {
  const [wanted, setWanted] = useState(false);
  const show = useAppSelector(somethingToShow);
  if (show && !wanted) setWanted(true);
  return wanted ? (
    <Suspense fallback={null}>
      <ChakraFrame />
    </Suspense>
  ) : null;
}
