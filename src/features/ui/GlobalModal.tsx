import { CloseButton, Dialog, Portal } from '@chakra-ui/react';
import { useRef, useState } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { modalRegistry } from './modalRegistry';
import { selectModal } from './selectors';
import { closeModal } from './uiSlice';

/** The one modal dialog of the console, driven by the ui slice (DESIGN §9). */
export function GlobalModal() {
  const modal = useAppSelector(selectModal);
  const dispatch = useAppDispatch();
  // The last modal stays on screen while the dialog animates out after the slice closed it.
  const [shown, setShown] = useState(modal);
  if (modal && modal !== shown) setShown(modal);
  // The exit of one modal may end after the next one opened (a refusal answered at once): then
  // the next one stays, so what the person is about to click is not taken from under them.
  const latest = useRef(modal);
  latest.current = modal;

  const close = (result?: unknown) => dispatch(closeModal(result));
  const Body = shown ? modalRegistry[shown.component] : undefined;

  return (
    // One dialog per modal (keyed by its id): a modal that takes another's place gets a dialog of its
    // own, so the leaving one's closing (its exit, a dismiss it reports late) cannot close the new one.
    <Dialog.Root
      key={shown?.id ?? 'none'}
      open={modal !== null}
      onOpenChange={({ open }) => !open && close(undefined)}
      // Escape, the close button and a click on the backdrop dismiss it; focus leaving does not: the
      // dialog that closed just before hands focus back to the page a moment later, and that is not
      // the person leaving this one (its focus trap brings focus back).
      onFocusOutside={(event) => event.preventDefault()}
      onExitComplete={() => !latest.current && setShown(null)}
      placement="center"
      lazyMount
      unmountOnExit
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content>
            {shown && (
              <>
                <Dialog.Header>
                  <Dialog.Title>{shown.title}</Dialog.Title>
                </Dialog.Header>
                <Dialog.Body>
                  {shown.description && <Dialog.Description mb="2">{shown.description}</Dialog.Description>}
                  {/* Keyed by id: a modal taking another's place starts with fresh state. */}
                  {Body && <Body key={shown.id} props={shown.props} close={close} />}
                </Dialog.Body>
              </>
            )}
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" aria-label="Close" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
