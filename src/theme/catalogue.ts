import { contrastRatio, legibleOn, mostReadable } from './color';

/** A theme as SPEC §3 knows it: what the selector shows and what is stored. */
export interface ThemeOption {
  label: string;
  name: string;
}

/** What a theme's stylesheet is generated from (themeCss.ts). Colours are #rrggbb. */
export interface ThemePalette {
  dark: boolean;
  /** Page background. */
  bg: string;
  /** Panels, cards, menus, dialogs. */
  surface: string;
  /** Body text. */
  fg: string;
  /** Secondary text. */
  muted: string;
  border: string;
  /** Accent: solid buttons, links, focus rings, selection. */
  primary: string;
  /** Text on the accent. */
  primaryFg: string;
  danger: string;
  warn: string;
  success: string;
  /** Corner radius of controls (a CSS length). */
  radius: string;
}

export interface Theme extends ThemeOption {
  family: string;
  palette: ThemePalette;
}

export const defaultTheme = 'aura-light-green';
export const themeStorageKey = 'theme';

/** A palette without its accent: one per family and light/dark. */
type Scheme = Omit<ThemePalette, 'primary' | 'primaryFg'>;

// Status colours legible as text on every light (resp. dark) background below.
const light = { dark: false, danger: '#c81e1e', warn: '#b45309', success: '#15803d' } as const;
const dark = { dark: true, danger: '#f87171', warn: '#fbbf24', success: '#4ade80' } as const;

const schemes = {
  auraLight: { ...light, bg: '#ffffff', surface: '#f8fafc', fg: '#334155', muted: '#64748b', border: '#e2e8f0', radius: '6px' },
  auraDark: { ...dark, bg: '#09090b', surface: '#18181b', fg: '#f4f4f5', muted: '#a1a1aa', border: '#3f3f46', radius: '6px' },
  laraLight: { ...light, bg: '#f8fafc', surface: '#ffffff', fg: '#374151', muted: '#6b7280', border: '#dee2e6', radius: '6px' },
  laraDark: { ...dark, bg: '#040d19', surface: '#071426', fg: '#e2e8f0', muted: '#94a3b8', border: '#1e3a5f', radius: '6px' },
  materialLight: { ...light, bg: '#fafafa', surface: '#ffffff', fg: '#212121', muted: '#666666', border: '#e0e0e0', radius: '4px' },
  materialDark: { ...dark, bg: '#121212', surface: '#1e1e1e', fg: '#e0e0e0', muted: '#9e9e9e', border: '#383838', radius: '4px' },
  bootstrapLight: { ...light, bg: '#ffffff', surface: '#f8f9fa', fg: '#212529', muted: '#646d75', border: '#dee2e6', radius: '4px' },
  bootstrapDark: { ...dark, bg: '#20262e', surface: '#2a323d', fg: '#e9ecef', muted: '#adb5bd', border: '#3f4b5b', radius: '4px' },
  tailwind: { ...light, bg: '#ffffff', surface: '#fafafa', fg: '#3f3f46', muted: '#71717a', border: '#e4e4e7', radius: '6px' },
  fluent: { ...light, bg: '#faf9f8', surface: '#ffffff', fg: '#323130', muted: '#605e5c', border: '#edebe9', radius: '2px' },
  saga: { ...light, bg: '#f8f9fa', surface: '#ffffff', fg: '#495057', muted: '#646d75', border: '#dee2e6', radius: '3px' },
  vela: { ...dark, bg: '#17212f', surface: '#1f2d40', fg: '#e3e8ee', muted: '#9fadbc', border: '#304562', radius: '3px' },
  arya: { ...dark, bg: '#121212', surface: '#1e1e1e', fg: '#e0e0e0', muted: '#a0a0a0', border: '#383838', radius: '3px' },
  luna: { ...dark, bg: '#191919', surface: '#323232', fg: '#dedede', muted: '#a0a0a0', border: '#4b4b4b', radius: '3px' },
  nova: { ...light, bg: '#ffffff', surface: '#f4f4f4', fg: '#333333', muted: '#666666', border: '#c8c8c8', radius: '3px' },
  novaAlt: { ...light, bg: '#f4f4f4', surface: '#ffffff', fg: '#333333', muted: '#5e5e5e', border: '#c8c8c8', radius: '3px' },
  rhea: { ...light, bg: '#f4f4f4', surface: '#ffffff', fg: '#333333', muted: '#5e5e5e', border: '#dadada', radius: '2px' },
  sohoLight: { ...light, bg: '#eff3f8', surface: '#ffffff', fg: '#043d75', muted: '#526d88', border: '#dfe7ef', radius: '6px' },
  sohoDark: { ...dark, bg: '#1d1e27', surface: '#282936', fg: '#e6e6ea', muted: '#a5a7b8', border: '#3e4053', radius: '6px' },
  vivaLight: { ...light, bg: '#f7f7f8', surface: '#ffffff', fg: '#495057', muted: '#6c6c6c', border: '#e5e9f0', radius: '6px' },
  vivaDark: { ...dark, bg: '#0e1315', surface: '#161d21', fg: '#dee2e6', muted: '#9fa9b7', border: '#263238', radius: '6px' },
  mira: { ...light, bg: '#f2f4f8', surface: '#ffffff', fg: '#3b4252', muted: '#5c6a82', border: '#d8dee9', radius: '6px' },
  nano: { ...light, bg: '#ffffff', surface: '#f2f4f8', fg: '#343a3f', muted: '#697077', border: '#dde1e6', radius: '1px' },
} satisfies Record<string, Scheme>;

/** Accent colours as [on a light scheme, on a dark scheme]. */
type Accents = Record<string, readonly [string, string]>;

const tailwindAccents: Accents = {
  green: ['#10b981', '#34d399'],
  blue: ['#3b82f6', '#60a5fa'],
  indigo: ['#6366f1', '#818cf8'],
  purple: ['#8b5cf6', '#a78bfa'],
  teal: ['#14b8a6', '#2dd4bf'],
  amber: ['#f59e0b', '#fbbf24'],
  cyan: ['#06b6d4', '#22d3ee'],
  pink: ['#ec4899', '#f472b6'],
};
const materialAccents: Accents = { indigo: ['#3f51b5', '#9fa8da'], deeppurple: ['#673ab7', '#ce93d8'] };

const accentLabels: Record<string, string> = { deeppurple: 'Deep Purple' };
const capitalize = (word: string) => word[0].toUpperCase() + word.slice(1);
const accentLabel = (accent: string) => accentLabels[accent] ?? capitalize(accent);

function theme(family: string, name: string, label: string, scheme: Scheme, accent: string): Theme {
  // Dark text on bright accents (amber, teal …), white on deep ones.
  const darkText = scheme.dark ? scheme.bg : '#111827';
  const readable = mostReadable(accent, ['#ffffff', darkText]);
  if (contrastRatio(accent, readable) >= 4.5) return { family, name, label, palette: { ...scheme, primary: accent, primaryFg: readable } };
  // A mid-tone accent (purple, blue) reads with neither: deepened under white text on a light
  // scheme, brightened under dark text on a dark one, just enough for 4.5:1 (WCAG AA).
  const primaryFg = scheme.dark ? darkText : '#ffffff';
  const primary = legibleOn(primaryFg, accent, scheme.dark ? '#ffffff' : '#000000');
  return { family, name, label, palette: { ...scheme, primary, primaryFg } };
}

/** `<prefix>-light-<accent>` and `<prefix>-dark-<accent>` for every accent. */
function lightAndDark(family: string, prefix: string, lightScheme: Scheme, darkScheme: Scheme, accents: Accents): Theme[] {
  const entries = Object.entries(accents);
  return [
    ...entries.map(([accent, [color]]) => theme(family, `${prefix}-light-${accent}`, `${family} Light ${accentLabel(accent)}`, lightScheme, color)),
    ...entries.map(([accent, [, color]]) => theme(family, `${prefix}-dark-${accent}`, `${family} Dark ${accentLabel(accent)}`, darkScheme, color)),
  ];
}

/** `<prefix>-<accent>` for a family with a single scheme (saga, vela, arya, luna). */
function accented(family: string, prefix: string, scheme: Scheme, accents: Record<string, string>): Theme[] {
  return Object.entries(accents).map(([accent, color]) => theme(family, `${prefix}-${accent}`, `${family} ${accentLabel(accent)}`, scheme, color));
}

/** Every theme, in selector order (families together, light before dark). */
export const themes: readonly Theme[] = [
  ...lightAndDark('Aura', 'aura', schemes.auraLight, schemes.auraDark, tailwindAccents),
  ...lightAndDark('Lara', 'lara', schemes.laraLight, schemes.laraDark, tailwindAccents),
  ...lightAndDark('Material', 'md', schemes.materialLight, schemes.materialDark, materialAccents),
  ...lightAndDark('Material Compact', 'mdc', schemes.materialLight, schemes.materialDark, materialAccents),
  ...lightAndDark('Bootstrap 4', 'bootstrap4', schemes.bootstrapLight, schemes.bootstrapDark, {
    blue: ['#007bff', '#8dd0ff'],
    purple: ['#883cae', '#c298d8'],
  }),
  theme('Tailwind', 'tailwind-light', 'Tailwind Light', schemes.tailwind, '#4f46e5'),
  theme('Fluent', 'fluent-light', 'Fluent Light', schemes.fluent, '#0078d4'),
  ...accented('Saga', 'saga', schemes.saga, { blue: '#2196f3', green: '#4caf50', orange: '#ffc107', purple: '#9c27b0' }),
  ...accented('Vela', 'vela', schemes.vela, { blue: '#64b5f6', green: '#81c784', orange: '#ffd54f', purple: '#ba68c8' }),
  ...accented('Arya', 'arya', schemes.arya, { blue: '#90caf9', green: '#a5d6a7', orange: '#ffe082', purple: '#ce93d8' }),
  ...accented('Luna', 'luna', schemes.luna, { amber: '#ffe082', blue: '#81d4fa', green: '#c5e1a5', pink: '#f48fb1' }),
  theme('Nova', 'nova', 'Nova', schemes.nova, '#007ad9'),
  theme('Nova', 'nova-alt', 'Nova Alt', schemes.novaAlt, '#007ad9'),
  theme('Nova', 'nova-accent', 'Nova Accent', schemes.nova, '#d81b60'),
  theme('Rhea', 'rhea', 'Rhea', schemes.rhea, '#7b95a3'),
  theme('Soho', 'soho-light', 'Soho Light', schemes.sohoLight, '#7254f3'),
  theme('Soho', 'soho-dark', 'Soho Dark', schemes.sohoDark, '#b19df7'),
  theme('Viva', 'viva-light', 'Viva Light', schemes.vivaLight, '#5472d4'),
  theme('Viva', 'viva-dark', 'Viva Dark', schemes.vivaDark, '#9eade6'),
  theme('Mira', 'mira', 'Mira', schemes.mira, '#5e81ac'),
  theme('Nano', 'nano', 'Nano', schemes.nano, '#1174c0'),
];

/** The themes grouped by family, for the selector. */
export const themeFamilies: readonly { label: string; themes: readonly Theme[] }[] = [
  ...new Set(themes.map((t) => t.family)),
].map((label) => ({ label, themes: themes.filter((t) => t.family === label) }));

const byName = new Map(themes.map((t) => [t.name, t]));

export function findTheme(name: string | null | undefined): Theme | undefined {
  return name ? byName.get(name) : undefined;
}
