import fs from 'node:fs';
import path from 'node:path';

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const root = path.resolve(__dirname, '../..');
const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8')) as T;

/** A spec naming a dist-tag ("latest", "next") rather than a version range. */
function isDistTag(spec: string): boolean {
  const target = spec.startsWith('npm:') ? spec.slice(spec.lastIndexOf('@') + 1) : spec;
  return /^[A-Za-z][\w.-]*$/.test(target) && !/^[xX]$/.test(target);
}

describe('the lock file', () => {
  // `npm ci` resolves a dist-tag against the registry on every install, so a package that depends on
  // "latest" breaks a clean install the day its dependency publishes. Each one is pinned by an override.
  it('pins every dependency a package asks for by dist-tag', () => {
    const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');
    const { overrides = {} } = readJson<{ overrides?: Record<string, unknown> }>('package.json');

    const unpinned: string[] = [];
    for (const [where, entry] of Object.entries(lock.packages)) {
      for (const [name, spec] of Object.entries({ ...entry.dependencies, ...entry.optionalDependencies })) {
        if (isDistTag(spec) && typeof overrides[name] !== 'string') unpinned.push(`${name}@${spec} (${where})`);
      }
    }

    expect(unpinned).toEqual([]);
  });

  it('tells dist-tags from ranges', () => {
    expect(['latest', 'next', 'npm:react-is@beta'].map(isDistTag)).toEqual([true, true, true]);
    expect(['^1.2.0', '*', 'x', '>=7 <8', 'npm:react-is@^18.3.1', '1.x'].map(isDistTag)).toEqual([
      false, false, false, false, false, false,
    ]);
  });
});
