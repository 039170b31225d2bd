/**
 * The client's version. Release builds replace `__WARDEN_VERSION__` with a define (esbuild `define`),
 * a checkout falls back to WARDEN_CLI_VERSION or "dev", so the same source runs bundled or through tsx.
 */
declare const __WARDEN_VERSION__: string | undefined;

export const cliVersion: string =
  typeof __WARDEN_VERSION__ === 'string' ? __WARDEN_VERSION__ : (process.env.WARDEN_CLI_VERSION ?? 'dev');
