import { defineConfig } from '@chakra-ui/react';
import {
  alertSlotRecipe,
  animationStyles,
  badgeRecipe,
  breakpoints,
  buttonRecipe,
  cardSlotRecipe,
  checkboxSlotRecipe,
  checkmarkRecipe,
  codeRecipe,
  collapsibleSlotRecipe,
  cssVarsPrefix,
  cssVarsRoot,
  dataListSlotRecipe,
  dialogSlotRecipe,
  drawerSlotRecipe,
  emptyStateSlotRecipe,
  fieldSlotRecipe,
  fieldsetSlotRecipe,
  globalCss,
  headingRecipe,
  iconRecipe,
  inputAddonRecipe,
  inputRecipe,
  kbdRecipe,
  keyframes,
  layerStyles,
  linkRecipe,
  listSlotRecipe,
  popoverSlotRecipe,
  progressSlotRecipe,
  radioGroupSlotRecipe,
  radiomarkRecipe,
  skeletonRecipe,
  spinnerRecipe,
  statusSlotRecipe,
  switchSlotRecipe,
  tableSlotRecipe,
  tabsSlotRecipe,
  textareaRecipe,
  textStyles,
  tokens,
} from '@chakra-ui/react/theme';

/** A token with a value per colour mode. */
const modes = (light: string, dark: string) => ({ value: { _light: light, _dark: dark } });

/**
 * The colour palettes the console names (`colorPalette="red"`, the looks of badges …; brand and
 * gray are the theme's own, in system.ts). test/web/theme/recipes.test.ts checks both ways that
 * these are the ones src/ uses.
 */
export const chakraPalettes = ['red', 'orange', 'green', 'blue', 'purple'] as const;

/** A palette's semantic tokens as Chakra's theme defines them: orange is the one with dark text on dark. */
function paletteTokens(palette: (typeof chakraPalettes)[number]) {
  const shades = (light: number, dark: number) => modes(`{colors.${palette}.${light}}`, `{colors.${palette}.${dark}}`);
  const orange = palette === 'orange';
  return {
    contrast: modes('white', orange ? 'black' : 'white'),
    fg: shades(700, 300),
    subtle: shades(100, 900),
    muted: shades(200, 800),
    emphasized: shades(300, 700),
    solid: shades(600, orange ? 500 : 600),
    focusRing: shades(500, 500),
    border: shades(500, 400),
  };
}

/**
 * Chakra's semantic tokens, restated: its theme exports them only together with every palette's
 * colours and the neutrals (bg, fg, border, gray), which system.ts replaces with the theme
 * stylesheet's. Shadows and palettes as Chakra has them (the recipes test compares them).
 */
const semanticTokens = {
  colors: Object.fromEntries(chakraPalettes.map((palette) => [palette, paletteTokens(palette)])),
  shadows: {
    xs: modes('0px 1px 2px {colors.gray.900/10}, 0px 0px 1px {colors.gray.900/20}', '0px 1px 1px {black/64}, 0px 0px 1px inset {colors.gray.300/20}'),
    sm: modes('0px 2px 4px {colors.gray.900/10}, 0px 0px 1px {colors.gray.900/30}', '0px 2px 4px {black/64}, 0px 0px 1px inset {colors.gray.300/30}'),
    md: modes('0px 4px 8px {colors.gray.900/10}, 0px 0px 1px {colors.gray.900/30}', '0px 4px 8px {black/64}, 0px 0px 1px inset {colors.gray.300/30}'),
    lg: modes('0px 8px 16px {colors.gray.900/10}, 0px 0px 1px {colors.gray.900/30}', '0px 8px 16px {black/64}, 0px 0px 1px inset {colors.gray.300/30}'),
    xl: modes('0px 16px 24px {colors.gray.900/10}, 0px 0px 1px {colors.gray.900/30}', '0px 16px 24px {black/64}, 0px 0px 1px inset {colors.gray.300/30}'),
    '2xl': modes('0px 24px 40px {colors.gray.900/16}, 0px 0px 1px {colors.gray.900/30}', '0px 24px 40px {black/64}, 0px 0px 1px inset {colors.gray.300/30}'),
    inner: modes('inset 0 2px 4px 0 {black/5}', 'inset 0 2px 4px 0 black'),
    inset: modes('inset 0 0 0 1px {black/5}', 'inset 0 0 0 1px {colors.gray.300/5}'),
  },
};

/**
 * Chakra's default theme (its `defaultThemeConfig`) with only the recipes of the components the
 * console renders. The default config carries the recipe of every Chakra component, and all of it
 * would ship with the sign-in page, the first load of every visitor. A component whose recipe is
 * missing renders unstyled without a warning: test/web/theme/recipes.test.ts walks the Chakra
 * components imported in src/ and fails until each one's recipe is listed here. Its semantic
 * tokens are the palettes the console uses (above).
 */
export const chakraTheme = defineConfig({
  preflight: true,
  cssVarsPrefix,
  cssVarsRoot,
  globalCss,
  theme: {
    breakpoints,
    keyframes,
    tokens,
    semanticTokens,
    textStyles,
    layerStyles,
    animationStyles,
    recipes: {
      badge: badgeRecipe,
      button: buttonRecipe,
      checkmark: checkmarkRecipe,
      code: codeRecipe,
      heading: headingRecipe,
      icon: iconRecipe,
      input: inputRecipe,
      inputAddon: inputAddonRecipe,
      kbd: kbdRecipe,
      link: linkRecipe,
      radiomark: radiomarkRecipe,
      skeleton: skeletonRecipe,
      spinner: spinnerRecipe,
      textarea: textareaRecipe,
    },
    slotRecipes: {
      alert: alertSlotRecipe,
      card: cardSlotRecipe,
      checkbox: checkboxSlotRecipe,
      collapsible: collapsibleSlotRecipe,
      dataList: dataListSlotRecipe,
      dialog: dialogSlotRecipe,
      drawer: drawerSlotRecipe,
      emptyState: emptyStateSlotRecipe,
      field: fieldSlotRecipe,
      fieldset: fieldsetSlotRecipe,
      list: listSlotRecipe,
      popover: popoverSlotRecipe,
      progress: progressSlotRecipe,
      radioGroup: radioGroupSlotRecipe,
      status: statusSlotRecipe,
      switch: switchSlotRecipe,
      table: tableSlotRecipe,
      tabs: tabsSlotRecipe,
    },
  },
});
