import type { Locator } from '@playwright/test';

/**
 * Chooses an option of a dropdown (src/components/Select.tsx) the way a person does: opens the
 * combobox, unless it is open already, and clicks the option with exactly that label.
 */
export async function pickOption(combobox: Locator, optionName: string) {
  if ((await combobox.getAttribute('aria-expanded')) !== 'true') await combobox.click();
  const listbox = combobox.page().locator(`[id="${await combobox.getAttribute('aria-controls')}"]`);
  await listbox.getByRole('option', { name: optionName, exact: true }).click();
}
