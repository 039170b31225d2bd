import { useState } from 'react';
import { Select } from '../components/Select';
import { themeFamilies } from './catalogue';
import { applyTheme, readStoredTheme } from './themeStore';

/** Every theme, one option group per theme family. */
const themeOptions = themeFamilies.flatMap((family) => family.themes.map((theme) => ({ value: theme.name, label: theme.label, group: family.label })));

/** The sidebar's theme picker: about 70 themes, so the panel offers a filter box. */
export function ThemeSelector() {
  const [name, setName] = useState(() => readStoredTheme());

  return (
    <Select
      aria-label="Theme"
      size="sm"
      value={name}
      options={themeOptions}
      onChange={(chosen) => setName(applyTheme(chosen))}
    />
  );
}
