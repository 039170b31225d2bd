import type { LoginFailure, LoginRequest } from '../../../contracts/auth';

// Fixed at build time by webpack's DefinePlugin; empty means the console's own origin.
const apiUrl = process.env.WARDEN_API_URL ?? '';

// Keyed by the contract's type, so a new failure kind fails the type check until it has words.
const messages: Record<LoginFailure, string> = {
  Failed: 'Wrong e-mail or password.',
  RequiresTwoFactor: 'Enter the 6-digit code from your authenticator app.',
  LockedOut: 'Too many failed attempts. The account is locked for 5 minutes.',
  NotAllowed: 'This account is disabled.',
};

export type SignInAnswer =
  | { ok: true }
  /** `failure`: the reason the server gave for refusing (a 401); otherwise `detail` says what went wrong. */
  | { ok: false; failure: LoginFailure | null; detail: string };

export type Credentials = Pick<LoginRequest, 'email' | 'password' | 'twoFactorCode' | 'twoFactorRecoveryCode'>;

/**
 * Signs in with the session in a cookie: a persistent one for "Keep me signed in", else one that ends
 * with the browser session. Plain fetch, not RTK Query: the sign-in page is every visitor's first load
 * and carries neither Redux nor the router (src/login.tsx); the console reads the session it made.
 */
export async function signIn(credentials: Credentials, remember: boolean): Promise<SignInAnswer> {
  const cookie = remember ? 'useCookies=true' : 'useSessionCookies=true';
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/auth/login?${cookie}`, {
      method: 'POST',
      credentials: 'include',
      // The server tells an API call from a screen navigation by Accept.
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify(credentials),
    });
  } catch {
    return { ok: false, failure: null, detail: 'The server cannot be reached: check the connection and try again.' };
  }
  if (response.ok) return { ok: true };
  const problem = (await response.json().catch(() => null)) as { title?: string; detail?: string } | null;
  const detail = problem?.detail ?? problem?.title ?? `The server answered ${response.status}.`;
  const failure = response.status === 401 && Object.hasOwn(messages, detail) ? (detail as LoginFailure) : null;
  return { ok: false, failure, detail };
}

/** Whether the server lets people create accounts; any failure to ask means no (the link is a convenience). */
export async function registrationOpen(): Promise<boolean> {
  try {
    const response = await fetch(`${apiUrl}/auth/options`, { credentials: 'include', headers: { Accept: 'application/json' } });
    return response.ok && ((await response.json()) as { registrationOpen?: unknown }).registrationOpen === true;
  } catch {
    return false;
  }
}

/** What the login page says about a refused sign-in; a wrong code on the second step is not a wrong password. */
export function loginFailureMessage(failure: LoginFailure, step: 'credentials' | 'twoFactor' | 'recovery'): string {
  if (failure === 'Failed' && step === 'twoFactor') return 'Wrong authentication code.';
  if (failure === 'Failed' && step === 'recovery') return 'Wrong or already used recovery code.';
  return messages[failure];
}
