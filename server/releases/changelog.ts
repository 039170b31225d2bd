/**
 * The notes of one version from a Keep a Changelog file: the text under its `## [version]` (or
 * `## version`) heading up to the next `## ` heading. A build version such as `0.1.0-be60504-dirty`
 * falls back to the section of its package version (`0.1.0`).
 */
export function changelogNotes(changelog: string, version: string): string {
  const sections = new Map<string, string>();
  let current: string | null = null;
  let lines: string[] = [];
  const close = () => {
    if (current !== null && !sections.has(current)) sections.set(current, lines.join('\n').trim());
  };
  for (const line of changelog.split(/\r?\n/)) {
    const heading = /^##\s+\[?([^\]\s]+)\]?/.exec(line);
    if (heading && !line.startsWith('###')) {
      close();
      current = heading[1].replace(/^v/, '');
      lines = [];
    } else if (current !== null) {
      lines.push(line);
    }
  }
  close();
  const packageVersion = /^\d+\.\d+\.\d+/.exec(version)?.[0];
  return sections.get(version) ?? (packageVersion && sections.get(packageVersion)) ?? '';
}
