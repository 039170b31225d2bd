import { defaultTheme, findTheme, themeFamilies, themes, themeStorageKey } from '../../src/theme/catalogue';
import { contrastRatio } from '../../src/theme/color';
import { themeConfig } from '../../src/theme/system';
import { themeCss } from '../../src/theme/themeCss';

/** Every `--w-*` variable the Chakra system's tokens read. */
const variablesReadBySystem = [...new Set(JSON.stringify(themeConfig).match(/--w-[a-z-]+/g))];

/** The declarations of a stylesheet's `:root` rule. */
function rootDeclarations(css: string): Map<string, string> {
  const body = /:root\s*\{([^}]*)\}/.exec(css.replace(/\/\*[\s\S]*?\*\//g, ''))?.[1] ?? '';
  return new Map(
    body
      .split(';')
      .map((declaration) => declaration.trim())
      .filter(Boolean)
      .map((declaration) => {
        const colon = declaration.indexOf(':');
        return [declaration.slice(0, colon).trim(), declaration.slice(colon + 1).trim()];
      }),
  );
}

describe('theme catalogue', () => {
  it('offers about 70 themes with unique names and labels, the default among them', () => {
    const names = themes.map((t) => t.name);
    expect(names.length).toBeGreaterThanOrEqual(65);
    expect(names.length).toBeLessThanOrEqual(75);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(themes.map((t) => t.label)).size).toBe(names.length);
    expect(defaultTheme).toBe('aura-light-green');
    expect(themeStorageKey).toBe('theme');
    expect(findTheme(defaultTheme)?.label).toBe('Aura Light Green');
  });

  it('names its themes like PrimeReact does', () => {
    const names = themes.map((t) => t.name);
    for (const name of [
      'aura-light-green', 'aura-dark-green', 'aura-light-blue', 'lara-light-indigo', 'lara-dark-teal',
      'md-light-indigo', 'md-dark-deeppurple', 'mdc-light-indigo', 'bootstrap4-light-blue', 'bootstrap4-dark-purple',
      'tailwind-light', 'fluent-light', 'saga-blue', 'vela-green', 'arya-orange', 'luna-amber', 'nova', 'nova-alt',
      'rhea', 'soho-light', 'soho-dark', 'viva-light', 'viva-dark',
    ]) {
      expect(names).toContain(name);
    }
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('groups every theme into exactly one family', () => {
    expect(themeFamilies.flatMap((family) => family.themes)).toEqual(themes);
    expect(themeFamilies.map((family) => family.label)).toEqual(expect.arrayContaining(['Aura', 'Lara', 'Material', 'Bootstrap 4']));
  });

  it('knows no theme by an unknown, empty or missing name', () => {
    expect(findTheme('aura-light-chartreuse')).toBeUndefined();
    expect(findTheme('')).toBeUndefined();
    expect(findTheme(null)).toBeUndefined();
  });
});

describe('generated theme stylesheets', () => {
  it('the system reads its colours and radius from theme variables', () => {
    expect(variablesReadBySystem).toEqual(expect.arrayContaining(['--w-bg', '--w-fg', '--w-border', '--w-primary', '--w-primary-fg', '--w-radius']));
  });

  it.each(themes.map((t) => [t.name, t] as const))('%s defines every variable the system reads', (_name, theme) => {
    const declarations = rootDeclarations(themeCss(theme));
    for (const variable of variablesReadBySystem) {
      expect([variable, declarations.get(variable)]).toEqual([variable, expect.stringMatching(/\S/)]);
    }
    expect(declarations.get('color-scheme')).toBe(theme.palette.dark ? 'dark' : 'light');
    expect(declarations.get('--w-radius')).toMatch(/^\d+px$/);
    for (const [name, value] of declarations) {
      if (name.startsWith('--w-') && name !== '--w-radius') expect([name, value]).toEqual([name, expect.stringMatching(/^#[0-9a-f]{6}$/)]);
    }
  });

  // The backgrounds text sits on: the page, panels, the sidebar and hovered rows (bg.subtle),
  // table heads and hovered sidebar links (bg.muted), selected rows and options (bg.emphasized).
  const textBackgrounds = ['--w-bg', '--w-surface', '--w-bg-subtle', '--w-bg-muted', '--w-bg-emphasized'];
  // Body, secondary (the sidebar's links, labels, hints), status and link text.
  const textColours = ['--w-fg', '--w-muted', '--w-danger', '--w-warn', '--w-success', '--w-primary-text'];

  it.each(themes.map((t) => [t.name, t] as const))('%s keeps its text legible on every background it sits on', (_name, theme) => {
    const declarations = rootDeclarations(themeCss(theme));
    const colour = (name: string) => declarations.get(name) as string;
    const ratio = (text: string, background: string) => contrastRatio(colour(text), colour(background));
    // Listed so a failure names the pair, e.g. the sidebar's links: "--w-muted on --w-bg-subtle 4.39".
    const short = textColours.flatMap((text) =>
      textBackgrounds.filter((background) => ratio(text, background) < 4.5).map((background) => `${text} on ${background} ${ratio(text, background).toFixed(2)}`),
    );
    expect(short).toEqual([]);
    // Mid-tone accents (purple, blue) are deepened or brightened until their text reaches 4.5.
    expect(contrastRatio(colour('--w-primary-fg'), colour('--w-primary'))).toBeGreaterThanOrEqual(4.5);
  });
});
