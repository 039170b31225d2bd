import type { LoaderDefinitionFunction } from 'webpack';

/** `const name = defineSomething(`: a top-level binding made by one of Chakra's `define*` helpers. */
const definition = /(\bconst\s+\w+\s*=\s*)(define[A-Z]\w*\()/g;

/**
 * Marks the calls of Chakra's `define*` helpers in its theme modules as pure. The helpers only
 * return their argument, but unmarked calls count as side effects: `@chakra-ui/react/theme`
 * builds `defaultThemeConfig = defineConfig({ …, recipes, slotRecipes })`, so importing its tokens
 * kept the recipe of every Chakra component in the bundle (src/theme/chakraTheme.ts takes only the
 * ones the console renders). Marked, an unused definition and what only it refers to drop out.
 */
const pureDefinitionsLoader: LoaderDefinitionFunction = (source) => source.replace(definition, '$1/* @__PURE__ */ $2');

export default pureDefinitionsLoader;
