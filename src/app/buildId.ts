/** The name of the meta element the build writes its id into (public/index.html). */
const buildMeta = 'warden-build';

/** The build id an index.html names, or null for a page built without one. */
export function buildIdOf(html: string): string | null {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return doc.querySelector(`meta[name="${buildMeta}"]`)?.getAttribute('content') || null;
}

/** The build this page runs. */
export const currentBuildId = (): string | null =>
  document.querySelector(`meta[name="${buildMeta}"]`)?.getAttribute('content') || null;

/**
 * Asks the server for its index.html, bypassing every cache: the build it serves now, null when it
 * names none, or undefined while the server does not answer.
 */
export async function serverBuildId(fetchIndex: typeof fetch = fetch): Promise<string | null | undefined> {
  try {
    const response = await fetchIndex('/index.html', { cache: 'no-store', headers: { Accept: 'text/html' } });
    if (!response.ok) return undefined;
    return buildIdOf(await response.text());
  } catch {
    return undefined;
  }
}

/** The part of Web Storage the reload needs: sessionStorage in the browser, a fake in tests. */
export type ReloadMemory = Pick<Storage, 'getItem' | 'setItem'>;

const reloadedForKey = 'warden.reloadedForBuild';

/**
 * Reloads the page (same URL) to take a newer build, once per build per tab: when the page still
 * runs an older build after reloading for that one (a cache in the way), reloading again would loop,
 * so it answers false and the person is shown what happened instead.
 */
export function reloadOnceFor(build: string, memory: ReloadMemory, reload: () => void): boolean {
  if (memory.getItem(reloadedForKey) === build) return false;
  memory.setItem(reloadedForKey, build);
  reload();
  return true;
}

/** Reloads this page at its address; tests replace it, as jsdom cannot. */
export const currentPage = { reload: () => window.location.reload() };
