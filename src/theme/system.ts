import { createSystem, defaultBaseConfig, defineConfig, type SystemStyleObject } from '@chakra-ui/react';
import {
  comboboxAnatomy,
  dialogAnatomy,
  drawerAnatomy,
  menuAnatomy,
  popoverAnatomy,
  selectAnatomy,
  tooltipAnatomy,
} from '@chakra-ui/react/anatomy';
import { chakraTheme } from './chakraTheme';

/** SPEC §9's stacking values; Chakra's defaults put dialogs and menus at 1500, tooltips at 1800. */
export const stacking = { modal: 1100, overlay: 1000, menu: 1000, tooltip: 1100 } as const;

/** SPEC §9: a tooltip fades in over 250 ms. */
export const tooltipFadeIn = '250ms';

/** SPEC §9: a dropdown's type-ahead forgets the typed letters after 500 ms; its panel scrolls past 200 px. */
export const dropdown = { typeAheadResetMs: 500, panelHeight: '200px' } as const;

/** A part on a layer, raised by zag's layer index when one overlay opens over another. */
const layer = (token: string): SystemStyleObject => ({ zIndex: `calc(var(--chakra-z-index-${token}) + var(--layer-index, 0))` });

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
    tokens: {
      zIndex: {
        modal: { value: stacking.modal },
        overlay: { value: stacking.overlay },
        dropdown: { value: stacking.menu },
        tooltip: { value: stacking.tooltip },
      },
    },
    // Chakra's overlays all stack on its popover token: each is pointed at its own SPEC value.
    slotRecipes: {
      dialog: {
        slots: dialogAnatomy.keys(),
        base: {
          backdrop: { zIndex: 'overlay' },
          positioner: layer('modal'),
          content: layer('modal'),
        },
      },
      drawer: {
        slots: drawerAnatomy.keys(),
        base: {
          backdrop: { zIndex: 'overlay' },
          positioner: layer('modal'),
          content: layer('modal'),
        },
      },
      menu: { slots: menuAnatomy.keys(), base: { content: layer('dropdown') } },
      select: { slots: selectAnatomy.keys(), base: { content: layer('dropdown') } },
      combobox: { slots: comboboxAnatomy.keys(), base: { content: layer('dropdown') } },
      popover: { slots: popoverAnatomy.keys(), base: { content: layer('overlay') } },
      tooltip: {
        slots: tooltipAnatomy.keys(),
        base: {
          content: { zIndex: 'tooltip', _open: { animationDuration: tooltipFadeIn } },
        },
      },
    },
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

export const system = createSystem(defaultBaseConfig, chakraTheme, themeConfig);
