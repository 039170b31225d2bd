import { Button, HStack } from '@chakra-ui/react';
import type { ModalBodyProps } from './modalBody';

export interface ConfirmModalProps {
  confirmLabel?: string;
  /** For actions that destroy something: the confirm button is red. */
  destructive?: boolean;
}

/** Yes/no question; closes with true or false. */
export function ConfirmModal({ props, close }: ModalBodyProps<ConfirmModalProps>) {
  return (
    <HStack justify="flex-end" gap="3" pt="2">
      <Button variant="outline" onClick={() => close(false)}>
        Cancel
      </Button>
      <Button colorPalette={props.destructive ? 'red' : undefined} onClick={() => close(true)}>
        {props.confirmLabel ?? 'Confirm'}
      </Button>
    </HStack>
  );
}
