import { defaultTheme, findTheme, themeStorageKey, type Theme } from './catalogue';

/** The part of Web Storage the theme choice needs: localStorage in the browser, a fake in tests. */
export type ThemeStorage = Pick<Storage, 'getItem' | 'setItem'>;

/** The `<link rel="stylesheet">` in public/index.html whose href selects the theme. */
export const themeLinkId = 'theme-link';

// Webpack's output.publicPath, defined at build time; jest runs without it.
const publicPath = process.env.PUBLIC_PATH ?? '/';

export function themeHref(name: string): string {
  return `${publicPath}themes/${name}.css`;
}

/** localStorage, or null where the browser refuses it (disabled storage, sandboxed frames). */
export function browserStorage(): ThemeStorage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The stored theme's name; the default when nothing, or no theme we know, is stored. */
export function readStoredTheme(storage: ThemeStorage | null = browserStorage()): string {
  try {
    return findTheme(storage?.getItem(themeStorageKey))?.name ?? defaultTheme;
  } catch {
    return defaultTheme;
  }
}

/**
 * Switches to the named theme (the default for an unknown name) by pointing the theme link at
 * its stylesheet, and remembers the choice. Returns the name applied.
 */
export function applyTheme(name: string, doc: Document = document, storage: ThemeStorage | null = browserStorage()): string {
  const theme = findTheme(name) ?? (findTheme(defaultTheme) as Theme);
  let link = doc.getElementById(themeLinkId) as HTMLLinkElement | null;
  if (!link) {
    link = doc.createElement('link');
    link.id = themeLinkId;
    link.rel = 'stylesheet';
    doc.head.append(link);
  }
  link.setAttribute('href', themeHref(theme.name));
  doc.documentElement.classList.toggle('dark', theme.palette.dark);
  try {
    storage?.setItem(themeStorageKey, theme.name);
  } catch {
    // Storage full or refused: the theme still applies to this page.
  }
  return theme.name;
}
