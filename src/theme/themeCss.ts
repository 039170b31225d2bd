import type { Theme, ThemePalette } from './catalogue';
import { legibleOn, mix } from './color';

/**
 * The CSS variables one theme stylesheet sets, by name. The palette gives the base colours;
 * the shades Chakra's semantic tokens need (subtle/muted/emphasized …) are mixed from them here,
 * once, at build time, so every stylesheet holds plain colours.
 */
export function themeVariables(p: ThemePalette): Record<string, string> {
  const neutrals = textBackgrounds(p);
  const [, , bgSubtle, bgMuted, bgEmphasized] = neutrals;
  const tint = (color: string, amount: number) => mix(p.bg, color, amount);
  // Secondary and status text, darkened/lightened just enough for WCAG AA (4.5:1) on every
  // neutral background: the palette's grey fell short on the sidebar's tint in some themes.
  const legible = (color: string) => legibleOn(neutrals, color, p.fg);
  const muted = legible(p.muted);
  return {
    '--w-bg': p.bg,
    '--w-bg-subtle': bgSubtle,
    '--w-bg-muted': bgMuted,
    '--w-bg-emphasized': bgEmphasized,
    '--w-surface': p.surface,
    '--w-fg': p.fg,
    '--w-muted': muted,
    '--w-subtle': mix(muted, p.bg, 0.3),
    '--w-border': p.border,
    '--w-border-muted': mix(p.border, p.bg, 0.5),
    '--w-border-subtle': mix(p.border, p.bg, 0.75),
    '--w-border-emphasized': mix(p.border, p.fg, 0.2),
    '--w-primary': p.primary,
    '--w-primary-fg': p.primaryFg,
    // The accent as text (links, outline/ghost buttons, the current nav entry, badges):
    // darkened/lightened until legible (WCAG AA, 4.5:1) on every background it is drawn on.
    '--w-primary-text': legibleOn(primaryTextBackgrounds(p), p.primary, p.fg),
    '--w-primary-subtle': tint(p.primary, 0.12),
    '--w-primary-muted': tint(p.primary, 0.22),
    '--w-primary-emphasized': tint(p.primary, 0.32),
    '--w-danger': legible(p.danger),
    '--w-danger-subtle': tint(p.danger, 0.12),
    '--w-warn': legible(p.warn),
    '--w-warn-subtle': tint(p.warn, 0.12),
    '--w-success': legible(p.success),
    '--w-success-subtle': tint(p.success, 0.12),
    '--w-radius': p.radius,
  };
}

/**
 * The neutral backgrounds text is drawn on, in this order: the page, panels, and the page's
 * tints towards the text colour (subtle: the sidebar, hovered rows; muted: table heads, hovered
 * sidebar links; emphasized: selected rows and options).
 */
function textBackgrounds(p: ThemePalette): string[] {
  const towardsFg = (amount: number) => mix(p.bg, p.fg, amount);
  return [p.bg, p.surface, towardsFg(0.03), towardsFg(0.06), towardsFg(0.12)];
}

/**
 * Every background the accent is drawn on as text: the neutral ones, and the accent's own
 * subtle/muted tints (badges, the current nav entry, hovered ghost buttons).
 */
export function primaryTextBackgrounds(p: ThemePalette): string[] {
  return [...textBackgrounds(p), mix(p.bg, p.primary, 0.12), mix(p.bg, p.primary, 0.22)];
}

/** The stylesheet emitted as `themes/<name>.css`. */
export function themeCss(theme: Theme): string {
  const variables = Object.entries(themeVariables(theme.palette)).map(([name, value]) => `  ${name}: ${value};`);
  return [
    `/* Warden theme "${theme.label}" (${theme.name}), generated from src/theme/catalogue.ts */`,
    ':root {',
    `  color-scheme: ${theme.palette.dark ? 'dark' : 'light'};`,
    ...variables,
    '}',
    // Paints the page before the app's own styles arrive, so a dark theme never flashes white.
    'html {',
    '  background-color: var(--w-bg);',
    '  color: var(--w-fg);',
    '}',
    '',
  ].join('\n');
}
