import type { ComponentType } from 'react';
import { SwitchoverModal } from '../instances/SwitchoverModal';
import { ConfirmIdentityModal } from '../profile/ConfirmIdentityModal';
import { ConfirmModal } from './ConfirmModal';
import type { ModalBodyProps } from './modalBody';

/**
 * Modal bodies by the key an `openModal` names. A feature adds its own body here; the title,
 * description and the dialog frame come from the global modal.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each body declares its own props
export const modalRegistry: Record<string, ComponentType<ModalBodyProps<any>>> = {
  confirm: ConfirmModal,
  confirmIdentity: ConfirmIdentityModal,
  switchover: SwitchoverModal,
};
