import type { Command } from 'commander';
import type { AccessTokenResponse, CurrentUser } from '../../contracts/auth';
import { apiErrorOf, normalizeUrl, problemOf, reach, tokensToSave } from '../api';
import { readCredentials, removeCredentials, writeCredentials } from '../credentials';
import { contextOf } from '../context';
import { CliError, UsageError } from '../errors';
import { renderFields } from '../output';
import { askLine, askSecret, readStdin } from '../prompt';

interface LoginOptions {
  url?: string;
  email?: string;
  passwordStdin?: boolean;
  code?: string;
  recoveryCode?: string;
}

async function postLogin(url: string, body: Record<string, string>): Promise<Response> {
  return reach(
    `${url}/auth/login`,
    { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) },
    url,
  );
}

const refused = 'Sign-in failed: wrong e-mail or password, or the account is locked for a few minutes after repeated failures.';
const codeOrPasswordRefused = 'Sign-in failed: wrong e-mail, password or two-factor code (each code works once: wait for the next one).';
const codeRefused = 'Sign-in failed: the two-factor code was not accepted (each code works once: wait for the next one).';

/** Signs in for bearer tokens, asking for the second factor when the account has it on. */
async function signIn(url: string, email: string, password: string, options: LoginOptions): Promise<AccessTokenResponse> {
  const given: Record<string, string> | null = options.recoveryCode
    ? { twoFactorRecoveryCode: options.recoveryCode }
    : options.code
      ? { twoFactorCode: options.code }
      : null;
  let response = await postLogin(url, { email, password, ...given });
  if (response.status === 401) {
    const { detail } = await problemOf(response);
    if (given) throw new CliError(detail === 'RequiresTwoFactor' ? codeRefused : codeOrPasswordRefused);
    if (detail !== 'RequiresTwoFactor') throw new CliError(refused);
    const code = await askLine('Two-factor code (or a recovery code): ');
    const field = /^\d{6,8}$/.test(code) ? 'twoFactorCode' : 'twoFactorRecoveryCode';
    response = await postLogin(url, { email, password, [field]: code });
    if (response.status === 401) throw new CliError(codeRefused);
  }
  return finish(response);
}

async function finish(response: Response): Promise<AccessTokenResponse> {
  if (!response.ok) throw await apiErrorOf(response);
  return (await response.json()) as AccessTokenResponse;
}

async function me(url: string, accessToken: string): Promise<CurrentUser> {
  const response = await reach(`${url}/auth/me`, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } }, url);
  if (!response.ok) throw await apiErrorOf(response);
  return (await response.json()) as CurrentUser;
}

const userFields = (url: string, user: CurrentUser) =>
  renderFields([
    ['Server', url],
    ['E-mail', user.email],
    ['Role', user.role],
    ['Two-factor', user.twoFactorEnabled ? 'on' : 'off'],
    ['User id', user.id],
  ]);

export function registerAuth(program: Command): void {
  program
    .command('login')
    .description('Sign in to a Warden server and keep the tokens (0600) in the config folder')
    .option('--url <url>', 'the server, e.g. https://warden.example.com (default: WARDEN_URL or the last one used)')
    .option('--email <email>', 'your e-mail')
    .option('--password-stdin', 'read the password from stdin (for scripts)')
    .option('--code <code>', 'a two-factor code from your authenticator app')
    .option('--recovery-code <code>', 'a two-factor recovery code instead of an app code')
    .addHelpText(
      'after',
      `
Examples:
  $ warden login --url https://warden.example.com --email me@example.com
  $ printf '%s' "$PASSWORD" | warden login --url "$URL" --email ci@example.com --password-stdin`,
    )
    .action(async (options: LoginOptions, command: Command) => {
      const ctx = contextOf(command);
      const rawUrl = options.url ?? process.env.WARDEN_URL ?? readCredentials(ctx.configDir)?.url ?? (await askLine('Server URL: '));
      const url = normalizeUrl(rawUrl);
      const email = options.email ?? (await askLine('E-mail: '));
      if (!email) throw new UsageError('An e-mail is needed.');
      const password = options.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : await askSecret('Password: ');
      if (!password) throw new UsageError('A password is needed.');
      const tokens = await signIn(url, email, password, options);
      const user = await me(url, tokens.accessToken);
      writeCredentials(ctx.configDir, { url, email: user.email, ...tokensToSave(tokens) });
      ctx.out.result({ url, user }, () => `Signed in to ${url} as ${user.email} (${user.role}).`);
    });

  program
    .command('logout')
    .description('End the session on the server and forget the saved tokens')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const saved = readCredentials(ctx.configDir);
      if (!saved) {
        ctx.out.result({ loggedOut: false }, () => 'Not signed in.');
        return;
      }
      try {
        await ctx.api().post('/auth/logout');
      } catch (error) {
        // The tokens are forgotten either way; an unreachable or refusing server is only worth a note.
        ctx.out.note(`The server did not end the session: ${(error as Error).message}`);
      }
      removeCredentials(ctx.configDir);
      ctx.out.result({ loggedOut: true, url: saved.url }, () => `Signed out of ${saved.url}.`);
    });

  program
    .command('whoami')
    .description('Show the signed-in user and server')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const user = await api.get<CurrentUser>('/auth/me');
      ctx.out.result({ url: api.baseUrl, user }, () => userFields(api.baseUrl, user));
    });
}
