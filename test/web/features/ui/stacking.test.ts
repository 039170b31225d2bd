import { stacking, system, tooltipFadeIn } from '../../../../src/theme/system';

/** The CSS a slot recipe gives one of its parts, as the system writes it. */
const partCss = (recipe: string, part: string) =>
  JSON.stringify(system.css((system.getSlotRecipe(recipe) as { base: Record<string, object> }).base[part]));

describe('theme stacking and motion (SPEC §9)', () => {
  it('uses the SPEC stacking values instead of Chakra defaults', () => {
    expect(system.token('zIndex.modal')).toBe(1100);
    expect(system.token('zIndex.overlay')).toBe(1000);
    expect(system.token('zIndex.dropdown')).toBe(1000);
    expect(system.token('zIndex.tooltip')).toBe(1100);
    expect(stacking).toEqual({ modal: 1100, overlay: 1000, menu: 1000, tooltip: 1100 });
  });

  it('puts dialogs on the modal layer, their backdrop on the overlay layer and menus on the menu layer', () => {
    expect(partCss('dialog', 'positioner')).toContain('var(--chakra-z-index-modal)');
    expect(partCss('dialog', 'backdrop')).toContain('var(--chakra-z-index-overlay)');
    expect(partCss('menu', 'content')).toContain('var(--chakra-z-index-dropdown)');
    expect(partCss('select', 'content')).toContain('var(--chakra-z-index-dropdown)');
  });

  it('fades tooltips in over 250 ms', () => {
    expect(tooltipFadeIn).toBe('250ms');
    expect(partCss('tooltip', 'content')).toContain('250ms');
  });
});
