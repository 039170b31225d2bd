import { createElement, type ComponentType } from 'react';

/**
 * A screen's code could not be downloaded (the server is restarting, say). The route's error
 * element shows it and calls `retry` once the server answers again.
 */
export class ScreenUnavailable extends Error {
  constructor(
    override readonly cause: unknown,
    readonly retry: () => Promise<void>,
  ) {
    super('The screen could not be loaded.');
    this.name = 'ScreenUnavailable';
  }
}

/** webpack's failed chunk download (JS or CSS), or a browser's failed dynamic import. */
export function isChunkLoadError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'ChunkLoadError' || /Loading (CSS )?chunk .* failed|dynamically imported module/i.test(error.message))
  );
}

type LazyScreen = () => Promise<{ Component: ComponentType }>;

/**
 * A lazy route whose download may be retried. The router keeps a failed lazy() for good, so a
 * failed download resolves instead, to a stand-in that throws ScreenUnavailable to the error
 * element until a retry has loaded the screen; then the error element revalidates and the screen
 * shows in its place. A new import() downloads a failed chunk again.
 */
export function retryable(load: LazyScreen): LazyScreen {
  return async () => {
    try {
      return await load();
    } catch (error) {
      if (!isChunkLoadError(error)) throw error;
      let Loaded: ComponentType | undefined;
      let pending: Promise<void> | undefined;
      const retry = () =>
        (pending ??= load().then(
          ({ Component }) => void (Loaded = Component),
          (failed: unknown) => {
            pending = undefined;
            throw failed;
          },
        ));
      const Retrying = () => {
        if (!Loaded) throw new ScreenUnavailable(error, retry);
        return createElement(Loaded);
      };
      return { Component: Retrying };
    }
  };
}
