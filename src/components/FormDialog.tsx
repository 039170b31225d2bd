import { Button, CloseButton, Dialog, HStack, Portal, Stack } from '@chakra-ui/react';
import type { FormEvent, ReactNode } from 'react';

interface FormDialogProps {
  title: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The form, usually a component with its own state: it is mounted afresh on every opening. */
  children: ReactNode;
}

/**
 * A dialog holding a form (create user, create group …). Questions with a yes/no answer go to
 * the global modal instead; a form keeps its fields and their errors here, beside its screen.
 */
export function FormDialog({ title, open, onOpenChange, children }: FormDialogProps) {
  return (
    <Dialog.Root open={open} onOpenChange={(details) => onOpenChange(details.open)} placement="center" lazyMount unmountOnExit>
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content>
            <Dialog.Header>
              <Dialog.Title>{title}</Dialog.Title>
            </Dialog.Header>
            {children}
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" aria-label="Close" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

interface DialogFormProps {
  submitLabel: string;
  busy: boolean;
  onSubmit: () => void;
  submitDisabled?: boolean;
  children: ReactNode;
}

/** The body and footer of a FormDialog: its fields, Cancel and the submit button. */
export function DialogForm({ submitLabel, busy, onSubmit, submitDisabled = false, children }: DialogFormProps) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form onSubmit={submit} aria-busy={busy} noValidate>
      <Dialog.Body>
        <Stack gap="4">{children}</Stack>
      </Dialog.Body>
      <Dialog.Footer>
        <HStack gap="3">
          <Dialog.ActionTrigger asChild>
            <Button variant="outline">Cancel</Button>
          </Dialog.ActionTrigger>
          <Button type="submit" loading={busy} disabled={submitDisabled}>
            {submitLabel}
          </Button>
        </HStack>
      </Dialog.Footer>
    </form>
  );
}
