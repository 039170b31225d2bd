import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Makes stack traces from the compiled server (build/server/server.js) name the TypeScript lines, as
 * `node --enable-source-maps` would, but reads the map only when a trace is first written: Node 20
 * parses the whole map (megabytes) while loading the bundle, which cost most of a second at every start.
 */
export function mapStackTraces(bundle: string): void {
  let map: SourceMap | null | undefined;
  const loadMap = () => {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as SourceMapPayload);
    } catch {
      map = null;
    }
    return map;
  };
  const bundleUrl = pathToFileURL(bundle);
  /** The frame's place in the bundle and in the TypeScript source, when it is in the bundle. */
  const places = (frame: NodeJS.CallSite): { compiled: string; original: string } | null => {
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if (frame.getFileName() !== bundle || line === null || column === null) return null;
    const entry = (map === undefined ? loadMap() : map)?.findEntry(line - 1, column - 1);
    if (!entry || !('originalSource' in entry)) return null;
    const source = fileURLToPath(new URL(entry.originalSource, bundleUrl));
    return { compiled: `${bundle}:${line}:${column}`, original: `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}` };
  };
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => {
    let header: string;
    try {
      header = String(error);
    } catch {
      header = 'Error';
    }
    const lines = frames.map((frame) => {
      const text = frame.toString();
      const place = places(frame);
      return `    at ${place ? text.replace(place.compiled, place.original) : text}`;
    });
    return [header, ...lines].join('\n');
  };
}
