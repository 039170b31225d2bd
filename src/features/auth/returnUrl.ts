import { routes } from '../../../contracts/routes';

type PathParts = { pathname: string; search?: string; hash?: string };

/** The login screen's address that leads back to `from` after signing in. */
export function loginUrlFor(from: PathParts): string {
  const returnUrl = `${from.pathname}${from.search ?? ''}${from.hash ?? ''}`;
  return `${routes.login.path}?${new URLSearchParams({ returnUrl })}`;
}

/**
 * Where to go after signing in. Only a path on this origin is followed ("/x", never "//host"
 * or "/\host", which browsers treat as another host), so a crafted link cannot send a fresh
 * session elsewhere; the login screen itself would be a loop.
 */
export function safeReturnUrl(raw: string | null | undefined): string {
  const fallback = routes.instances.path;
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return fallback;
  const { pathname } = new URL(raw, 'http://warden.invalid');
  return pathname === routes.login.path ? fallback : raw;
}
