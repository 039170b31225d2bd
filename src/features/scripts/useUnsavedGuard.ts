import { useEffect, useRef } from 'react';
import { useBlocker, type Location } from 'react-router-dom';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { selectModal } from '../ui/selectors';
import { unsavedLeaveRequested } from './scriptsSaga';

const href = ({ pathname, search, hash }: Pick<Location, 'pathname' | 'search' | 'hash'>) => `${pathname}${search}${hash}`;

/**
 * Keeps unsaved work from being lost: leaving for another screen asks first (the global confirm
 * modal, through the scripts saga, which goes on to the screen after a yes), and closing or
 * reloading the tab gets the browser's own question.
 *
 * While the question is open the navigation stays blocked. After a yes the saga navigates within
 * the dispatch that closes the modal, before this component renders again, so that navigation finds
 * `asking` still set and passes; a no (the modal closed, nothing navigated) releases the block.
 */
export function useUnsavedGuard(dirty: boolean) {
  const dispatch = useAppDispatch();
  const modalOpen = useAppSelector(selectModal) !== null;
  const asking = useRef(false);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && !asking.current && currentLocation.pathname !== nextLocation.pathname,
  );

  useEffect(() => {
    if (blocker.state !== 'blocked') {
      asking.current = false;
      return;
    }
    if (!asking.current) {
      asking.current = true;
      dispatch(unsavedLeaveRequested({ to: href(blocker.location) }));
    } else if (!modalOpen) {
      blocker.reset();
    }
  }, [blocker, modalOpen, dispatch]);

  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
}
