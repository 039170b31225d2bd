import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The console's modules must not import each other in a circle: a circle makes the evaluation order of
 * modules depend on which one is loaded first, and makes the code hard to read bottom-up. Type-only
 * imports count too — they are what pulled the store into every feature before. Lazy `import()` calls
 * do not: they run after every module is evaluated, which is how the router loads screens.
 */
const srcRoot = resolve(__dirname, '../../src');
const extensions = ['.ts', '.tsx'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return extensions.some((extension) => name.endsWith(extension)) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names, as the bundler resolves it; undefined for packages. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [base, ...extensions.map((e) => base + e), ...extensions.map((e) => join(base, `index${e}`))];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** Specifiers of the static `import … from` and `export … from` statements of a module, type-only ones included. */
function staticSpecifiers(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  return source.statements.flatMap((statement) =>
    (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
    statement.moduleSpecifier &&
    ts.isStringLiteral(statement.moduleSpecifier)
      ? [statement.moduleSpecifier.text]
      : [],
  );
}

function importGraph(files: string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => [
      file,
      staticSpecifiers(file).flatMap((specifier) => {
        const target = resolveSpecifier(file, specifier);
        return target?.startsWith(srcRoot) ? [target] : [];
      }),
    ]),
  );
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];

  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component);
  };

  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.map((component) => component.map((file) => relative(srcRoot, file)).sort());
}

describe('import structure of src/', () => {
  const graph = importGraph(sourceFiles(srcRoot));

  it('reads the imports of every module', () => {
    // Guards the walk itself: an empty or unresolved graph would pass the circle check vacuously.
    expect(graph.size).toBeGreaterThan(100);
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
    expect(edges).toBeGreaterThan(graph.size);
    expect(graph.get(join(srcRoot, 'app/rootReducer.ts'))).toContain(join(srcRoot, 'features/ui/uiSlice.ts'));
  });

  it('finds a circle when there is one', () => {
    const a = join(srcRoot, 'a.ts');
    const b = join(srcRoot, 'b.ts');
    const c = join(srcRoot, 'c.ts');
    expect(circles(new Map([[a, [b]], [b, [c]], [c, [a]]]))).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(circles(new Map([[a, [b]], [b, [c]], [c, []]]))).toEqual([]);
  });

  it('has no import circle, type-only imports included', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('keeps the store out of features/: they type state with app/rootReducer', () => {
    const store = join(srcRoot, 'app/store.ts');
    const importers = [...graph].filter(([file, targets]) => file.includes('/features/') && targets.includes(store));
    expect(importers.map(([file]) => relative(srcRoot, file))).toEqual([]);
  });
});
