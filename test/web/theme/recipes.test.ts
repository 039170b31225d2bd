import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createSystem, defaultBaseConfig, type SystemContext } from '@chakra-ui/react';
import { recipes as chakraRecipes, semanticTokens as chakraSemanticTokens, slotRecipes as chakraSlotRecipes } from '@chakra-ui/react/theme';
import { chakraPalettes, chakraTheme } from '../../../src/theme/chakraTheme';
import { system } from '../../../src/theme/system';

// The console's Chakra system carries only the recipes of the components it renders
// (src/theme/chakraTheme.ts), and Chakra renders a component whose recipe is missing unstyled,
// silently. These tests read which components src/ imports, follow each one through Chakra's own
// modules to every recipe it looks up, and check that the system has each of them.

const src = path.resolve(__dirname, '../../../src');
const chakraEsm = path.join(path.dirname(require.resolve('@chakra-ui/react/package.json')), 'dist/esm');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

/** Every value (not type) src/ imports from '@chakra-ui/react', by its exported name. */
function importedChakraNames(): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles(src)) {
    for (const [, specifiers] of readFileSync(file, 'utf8').matchAll(/import\s*\{([^}]*)\}\s*from\s*'@chakra-ui\/react'/g)) {
      for (const specifier of specifiers.split(',').map((s) => s.trim())) {
        if (specifier && !specifier.startsWith('type ')) names.add(specifier.split(/\s+as\s+/)[0]);
      }
    }
  }
  return names;
}

/** The module of Chakra's ES build that each export of '@chakra-ui/react' comes from. */
function chakraExportModules(): Map<string, string> {
  const index = readFileSync(path.join(chakraEsm, 'index.js'), 'utf8');
  const modules = new Map<string, string>();
  for (const [, specifiers, from] of index.matchAll(/export\s*\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    for (const specifier of specifiers.split(',')) {
      const [local, exported = local] = specifier.trim().split(/\s+as\s+/);
      modules.set(exported, from);
    }
  }
  // Namespaces (Dialog, Table …): `import * as namespace$3 from './components/…'; export { namespace$3 as Dialog };`
  const namespaces = new Map([...index.matchAll(/import\s*\*\s*as\s*(\S+)\s*from\s*'([^']+)'/g)].map(([, local, from]) => [local, from]));
  for (const [, local, exported] of index.matchAll(/export\s*\{\s*(\S+)\s+as\s+(\w+)\s*\};/g)) {
    const from = namespaces.get(local);
    if (from) modules.set(exported, from);
  }
  return modules;
}

const recipeLookup = /(?:createRecipeContext|createSlotRecipeContext|useRecipe|useSlotRecipe)\(\s*\{\s*key:\s*"([^"]+)"/g;

/**
 * The recipe keys a Chakra module looks up, itself or through the Chakra components it renders
 * (a Checkbox draws a Checkmark, a Field's required mark is an Icon).
 */
function recipeKeysReachedFrom(module: string): Set<string> {
  const keys = new Set<string>();
  const seen = new Set<string>();
  const pending = [path.resolve(chakraEsm, module)];
  const components = path.join(chakraEsm, 'components');
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file) || !file.startsWith(components)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const [, key] of code.matchAll(recipeLookup)) keys.add(key);
    for (const [, relative] of code.matchAll(/from\s*'(\.[^']+)'/g)) pending.push(path.resolve(path.dirname(file), relative));
  }
  return keys;
}

/** A component and a recipe of Chakra's default theme it needs. */
interface Need {
  component: string;
  key: string;
}

function recipesNeeded(components: Iterable<string>): Need[] {
  const modules = chakraExportModules();
  return [...components].flatMap((component) => {
    const module = modules.get(component);
    if (!module?.startsWith('./components/')) return [];
    // Some lookups have no recipe in Chakra's theme either (Text): nothing to carry for those.
    return [...recipeKeysReachedFrom(module)].filter((key) => key in chakraRecipes || key in chakraSlotRecipes).map((key) => ({ component, key }));
  });
}

/**
 * Whether `sys` carries Chakra's own recipe for `key`, possibly with the console's overrides
 * merged in; an override alone (src/theme/system.ts restyles overlays) has no class name and styles nothing.
 */
function hasChakraRecipe(sys: SystemContext, key: string): boolean {
  const chakra = (chakraRecipes as Record<string, { className?: string }>)[key] ?? (chakraSlotRecipes as Record<string, { className?: string }>)[key];
  const carried = (sys.isSlotRecipe(key) ? sys.getSlotRecipe(key) : sys.getRecipe(key)) as { className?: string } | undefined;
  return carried?.className !== undefined && carried.className === chakra.className;
}

const missing = (sys: SystemContext, needs: Need[]) => needs.filter(({ key }) => !hasChakraRecipe(sys, key)).map(({ component, key }) => `${component} → ${key}`);

describe('the Chakra system (src/theme/chakraTheme.ts)', () => {
  const needs = recipesNeeded(importedChakraNames());

  it('finds the recipes of the Chakra components src/ imports, through the components they render', () => {
    const keysOf = (component: string) => needs.filter((need) => need.component === component).map((need) => need.key);
    expect(keysOf('Button')).toEqual(expect.arrayContaining(['button', 'spinner']));
    expect(keysOf('Checkbox')).toEqual(expect.arrayContaining(['checkbox', 'checkmark']));
    expect(keysOf('Dialog')).toEqual(['dialog']);
    expect(keysOf('Stack')).toEqual([]);
  });

  it('has the recipe of every Chakra component the console renders', () => {
    expect(missing(system, needs)).toEqual([]);
  });

  it('would report a component whose recipe is left out', () => {
    expect(missing(createSystem(defaultBaseConfig), recipesNeeded(['Button', 'Dialog']))).toEqual(['Button → button', 'Button → spinner', 'Dialog → dialog']);
  });

  it('ships no Chakra recipe that no imported component needs', () => {
    const needed = new Set(needs.map((need) => need.key));
    const carried = [...Object.keys(chakraRecipes), ...Object.keys(chakraSlotRecipes)].filter((key) => hasChakraRecipe(system, key));
    expect(carried.filter((key) => !needed.has(key))).toEqual([]);
  });
});

/**
 * The colour palettes src/ names: `colorPalette="red"`, the branches of `colorPalette={ok ? 'green' : 'red'}`, and
 * the `palette: 'orange'` of the looks tables badges read.
 */
function palettesNamedInSrc(): Set<string> {
  const named = new Set<string>();
  for (const file of sourceFiles(src)) {
    const code = readFileSync(file, 'utf8');
    for (const [, name] of code.matchAll(/colorPalette(?:=|:\s*)["']([a-z]+)["']/g)) named.add(name);
    for (const [, expression] of code.matchAll(/colorPalette=\{([^}]*)\}/g)) for (const [, name] of expression.matchAll(/[?:]\s*'([a-z]+)'/g)) named.add(name);
    for (const [, name] of code.matchAll(/\bpalette:\s*'([a-z]+)'/g)) named.add(name);
  }
  return named;
}

describe('the colour palettes of the Chakra system (src/theme/chakraTheme.ts)', () => {
  // brand and gray are the theme's own (src/theme/system.ts), not Chakra's.
  const named = [...palettesNamedInSrc()].filter((name) => name !== 'brand' && name !== 'gray');

  it('finds the palettes src/ names', () => {
    expect(named).toEqual(expect.arrayContaining(['red', 'green', 'orange', 'purple']));
  });

  it('ships every palette src/ names, and no other', () => {
    expect([...chakraPalettes].sort()).toEqual(named.sort());
    for (const palette of named) expect(system.token(`colors.${palette}.solid`, 'missing')).not.toBe('missing');
  });

  it('restates Chakra’s own tokens for those palettes and its shadows', () => {
    const chakraColors = chakraSemanticTokens.colors as Record<string, unknown>;
    const theme = chakraTheme.theme!.semanticTokens!;
    for (const palette of chakraPalettes) expect((theme.colors as Record<string, unknown>)[palette]).toEqual(chakraColors[palette]);
    expect(theme.shadows).toEqual(chakraSemanticTokens.shadows);
  });
});
