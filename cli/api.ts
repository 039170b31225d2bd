import type { AccessTokenResponse } from '../contracts/auth';
import type { Problem } from '../contracts/problem';
import { readCredentials, writeCredentials, type Credentials } from './credentials';
import { ApiError, CliError, describeProblem } from './errors';

export type Query = Record<string, string | number | boolean | undefined>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
}

const requestTimeoutMs = 120_000;

/** "connection refused" for ECONNREFUSED and friends: the words an operator expects, not fetch's "fetch failed". */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host not found (DNS lookup failed)',
    ETIMEDOUT: 'connection timed out',
    ECONNRESET: 'connection reset',
    EHOSTUNREACH: 'host unreachable',
    CERT_HAS_EXPIRED: 'the TLS certificate has expired',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'the TLS certificate is self-signed',
  };
  if (cause?.code && reasons[cause.code]) return reasons[cause.code];
  if ((error as Error).name === 'TimeoutError') return 'no answer in time';
  return cause?.message ?? (error as Error).message;
}

/** Fetches `url`, turning a failure to connect into "cannot reach <server>: <reason>". */
export async function reach(url: string | URL, init: RequestInit, server: string): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new CliError(`cannot reach ${server}: ${networkReason(error)}`);
  }
}

/** Reads a problem document from a failed answer (or makes one from its status line). */
export async function problemOf(response: Response): Promise<Partial<Problem>> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as Partial<Problem>;
    if (parsed && typeof parsed === 'object') return parsed;
  } catch {
    // Not JSON: a proxy's page or an empty body.
  }
  return { status: response.status, title: response.statusText || `HTTP ${response.status}` };
}

export async function apiErrorOf(response: Response): Promise<ApiError> {
  const problem = await problemOf(response);
  return new ApiError(response.status, problem, describeProblem(response.status, problem));
}

/** Removes a trailing slash so paths join cleanly; refuses anything but http(s). */
export function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`"${url}" is not a URL (expected e.g. https://warden.example.com).`, 2);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CliError(`"${url}" must start with http:// or https://.`, 2);
  return parsed.toString().replace(/\/+$/, '');
}

/** Where the tokens come from: the saved sign-in (refreshed when it expires) or WARDEN_TOKEN (used as is). */
type TokenSource = { kind: 'saved'; configDir: string; credentials: Credentials } | { kind: 'env'; token: string };

/**
 * The API as the signed-in user: JSON in and out, problems turned into clear messages, and one
 * refresh of the access token on a 401 before asking to sign in again.
 */
export class ApiClient {
  private constructor(
    readonly baseUrl: string,
    private source: TokenSource,
  ) {}

  /** The client for the saved sign-in, with WARDEN_URL / WARDEN_TOKEN overriding it (CI). */
  static open(configDir: string): ApiClient {
    const saved = readCredentials(configDir);
    const envToken = process.env.WARDEN_TOKEN;
    const envUrl = process.env.WARDEN_URL;
    if (envToken) {
      const url = envUrl ?? saved?.url;
      if (!url) throw new CliError('WARDEN_TOKEN is set but not WARDEN_URL: set the server URL too.');
      return new ApiClient(normalizeUrl(url), { kind: 'env', token: envToken });
    }
    if (!saved) throw new CliError('Not signed in: run `warden login` (or set WARDEN_URL and WARDEN_TOKEN).');
    return new ApiClient(normalizeUrl(envUrl ?? saved.url), { kind: 'saved', configDir, credentials: saved });
  }

  get accessToken(): string {
    return this.source.kind === 'env' ? this.source.token : this.source.credentials.accessToken;
  }

  /** The signed-in e-mail as saved (empty with WARDEN_TOKEN). */
  get email(): string {
    return this.source.kind === 'saved' ? this.source.credentials.email : '';
  }

  /**
   * A token the server accepts now, refreshed first when it no longer does (a hub connection asks
   * for one on every reconnect).
   */
  async freshToken(): Promise<string> {
    const response = await this.send('GET', '/auth/check');
    await response.body?.cancel();
    if (!response.ok) throw await apiErrorOf(response);
    return this.accessToken;
  }

  url(path: string, query: Query = {}): URL {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    if (!response.ok) throw await apiErrorOf(response);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  post<T>(path: string, body: unknown = {}, query?: Query): Promise<T> {
    return this.request<T>('POST', path, { body, query });
  }

  put<T>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.request<T>('PUT', path, { body, query });
  }

  delete<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('DELETE', path, { query });
  }

  /** The raw answer (for status checks); a 401 is retried once after refreshing the tokens. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const first = await this.once(method, path, options);
    if (first.status !== 401) return first;
    await first.body?.cancel();
    await this.refresh();
    const second = await this.once(method, path, options);
    if (second.status === 401) throw await this.expired(second);
    return second;
  }

  private once(method: string, path: string, { query, body }: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.accessToken}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return reach(
      this.url(path, query),
      { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(requestTimeoutMs) },
      this.baseUrl,
    );
  }

  private async expired(response: Response): Promise<CliError> {
    const problem = await problemOf(response);
    const hint =
      this.source.kind === 'env'
        ? 'The token in WARDEN_TOKEN was refused: make a new one.'
        : 'Your session expired or was ended: run `warden login` again.';
    return new ApiError(401, problem, hint);
  }

  /**
   * Exchanges the refresh token for new tokens and saves them. Another warden process may have done
   * so already (a refresh token works once, and using it twice ends the sign-in): a saved token
   * newer than ours is taken instead.
   */
  private async refresh(): Promise<void> {
    if (this.source.kind === 'env') throw new CliError('The token in WARDEN_TOKEN was refused (expired or revoked): make a new one.');
    const { configDir, credentials } = this.source;
    const current = readCredentials(configDir);
    if (current && current.refreshToken !== credentials.refreshToken && current.url === credentials.url) {
      this.source = { kind: 'saved', configDir, credentials: current };
      return;
    }
    const response = await reach(
      this.url('/auth/refresh'),
      {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: credentials.refreshToken }),
        signal: AbortSignal.timeout(requestTimeoutMs),
      },
      this.baseUrl,
    );
    if (!response.ok) throw await this.expired(response);
    const tokens = (await response.json()) as AccessTokenResponse;
    const renewed = { ...credentials, ...tokensToSave(tokens) };
    writeCredentials(configDir, renewed);
    this.source = { kind: 'saved', configDir, credentials: renewed };
  }
}

export function tokensToSave(tokens: AccessTokenResponse): Pick<Credentials, 'accessToken' | 'refreshToken' | 'expiresAt'> {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: new Date(Date.now() + tokens.expiresIn * 1000).toISOString(),
  };
}
