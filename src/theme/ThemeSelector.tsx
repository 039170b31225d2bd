import { NativeSelect } from '@chakra-ui/react';
import { useState } from 'react';
import { themeFamilies } from './catalogue';
import { applyTheme, readStoredTheme } from './themeStore';

/** The sidebar's theme picker: a native select, one option group per theme family. */
export function ThemeSelector() {
  const [name, setName] = useState(() => readStoredTheme());

  return (
    <NativeSelect.Root size="sm">
      <NativeSelect.Field aria-label="Theme" value={name} onChange={(event) => setName(applyTheme(event.currentTarget.value))}>
        {themeFamilies.map((family) => (
          <optgroup key={family.label} label={family.label}>
            {family.themes.map((theme) => (
              <option key={theme.name} value={theme.name}>
                {theme.label}
              </option>
            ))}
          </optgroup>
        ))}
      </NativeSelect.Field>
      <NativeSelect.Indicator />
    </NativeSelect.Root>
  );
}
