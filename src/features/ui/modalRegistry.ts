import type { ComponentType } from 'react';
import { ConfirmIdentityModal } from '../profile/ConfirmIdentityModal';
import { ConfirmModal } from './ConfirmModal';

/** What a registered modal body receives: the opener's props and a way to close with a result. */
export interface ModalBodyProps<Props = Record<string, unknown>> {
  props: Props;
  close: (result?: unknown) => void;
}

/**
 * Modal bodies by the key an `openModal` names. A feature adds its own body here; the title,
 * description and the dialog frame come from the global modal.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each body declares its own props
export const modalRegistry: Record<string, ComponentType<ModalBodyProps<any>>> = {
  confirm: ConfirmModal,
  confirmIdentity: ConfirmIdentityModal,
};
