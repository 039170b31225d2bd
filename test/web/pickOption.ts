import { within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';

/** Opens a dropdown (src/components/Select.tsx), unless it is open already, and returns its listbox. */
export async function openOptions(user: UserEvent, combobox: HTMLElement) {
  if (combobox.getAttribute('aria-expanded') !== 'true') await user.click(combobox);
  const listbox = document.getElementById(combobox.getAttribute('aria-controls') ?? '');
  if (!listbox) throw new Error('The combobox controls no listbox');
  return listbox;
}

/**
 * Chooses an option of a dropdown the way a person does: opens the combobox, then clicks the
 * option with that label. Waits for the option, so lists that load after the screen still work.
 */
export async function pickOption(user: UserEvent, combobox: HTMLElement, optionName: string | RegExp) {
  const listbox = await openOptions(user, combobox);
  await user.click(await within(listbox).findByRole('option', { name: optionName }));
}
