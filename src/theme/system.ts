import { createSystem, defaultConfig, defineConfig } from '@chakra-ui/react';

/** A token whose value is one of the variables every `themes/<name>.css` sets (themeCss.ts). */
const themeVar = (name: string) => ({ value: `var(--w-${name})` });

/**
 * Chakra's colour and radius tokens read the theme stylesheet's variables instead of fixed
 * colours, so swapping the one `<link id="theme-link">` restyles the whole app without a reload.
 * `brand` is the theme's accent and the default colour palette; `gray` follows the theme's
 * neutrals. The `dark` class on <html> (set with the link, see themeStore.ts) keeps Chakra's
 * other palettes (red, green …) and shadows in step with light/dark.
 */
export const themeConfig = defineConfig({
  globalCss: {
    html: { colorPalette: 'brand' },
  },
  theme: {
    semanticTokens: {
      colors: {
        bg: {
          DEFAULT: themeVar('bg'),
          subtle: themeVar('bg-subtle'),
          muted: themeVar('bg-muted'),
          emphasized: themeVar('bg-emphasized'),
          inverted: themeVar('fg'),
          panel: themeVar('surface'),
          error: themeVar('danger-subtle'),
          warning: themeVar('warn-subtle'),
          success: themeVar('success-subtle'),
          info: themeVar('primary-subtle'),
        },
        fg: {
          DEFAULT: themeVar('fg'),
          muted: themeVar('muted'),
          subtle: themeVar('subtle'),
          inverted: themeVar('bg'),
          error: themeVar('danger'),
          warning: themeVar('warn'),
          success: themeVar('success'),
          info: themeVar('primary-text'),
        },
        border: {
          DEFAULT: themeVar('border'),
          muted: themeVar('border-muted'),
          subtle: themeVar('border-subtle'),
          emphasized: themeVar('border-emphasized'),
          inverted: themeVar('fg'),
          error: themeVar('danger'),
          warning: themeVar('warn'),
          success: themeVar('success'),
          info: themeVar('primary'),
        },
        brand: {
          solid: themeVar('primary'),
          contrast: themeVar('primary-fg'),
          fg: themeVar('primary-text'),
          muted: themeVar('primary-muted'),
          subtle: themeVar('primary-subtle'),
          emphasized: themeVar('primary-emphasized'),
          // The legible accent shade: the ring stands out from the page as well as text does.
          focusRing: themeVar('primary-text'),
          border: themeVar('primary'),
        },
        gray: {
          solid: themeVar('fg'),
          contrast: themeVar('bg'),
          fg: themeVar('fg'),
          muted: themeVar('bg-emphasized'),
          subtle: themeVar('bg-muted'),
          emphasized: themeVar('border-emphasized'),
          focusRing: themeVar('muted'),
          border: themeVar('border'),
        },
      },
      radii: {
        l1: { value: 'calc(var(--w-radius) / 2)' },
        l2: themeVar('radius'),
        l3: { value: 'calc(var(--w-radius) * 1.5)' },
      },
    },
  },
});

export const system = createSystem(defaultConfig, themeConfig);
