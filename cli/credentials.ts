import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What `warden login` keeps: the server and the bearer tokens issued for it. */
export interface Credentials {
  url: string;
  email: string;
  accessToken: string;
  refreshToken: string;
  /** When the access token stops working (ISO); refreshed on the first 401 after it. */
  expiresAt: string;
}

/** What the default folder depends on; the running process's by default. */
export interface ConfigHost {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
}

const thisHost = (): ConfigHost => ({ platform: process.platform, env: process.env, home: os.homedir() });

/** %APPDATA%\warden on Windows; elsewhere $XDG_CONFIG_HOME/warden, else ~/.config/warden. */
export function defaultConfigDir({ platform, env, home }: ConfigHost = thisHost()): string {
  if (platform === 'win32') return path.win32.join(env.APPDATA || path.win32.join(home, 'AppData', 'Roaming'), 'warden');
  return path.posix.join(env.XDG_CONFIG_HOME || path.posix.join(home, '.config'), 'warden');
}

/** How the help names that folder on `platform`. */
export function configDirHelp(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? '%APPDATA%\\warden' : '$XDG_CONFIG_HOME/warden or ~/.config/warden';
}

const fileIn = (dir: string) => path.join(dir, 'credentials.json');

export function readCredentials(dir: string): Credentials | null {
  let text: string;
  try {
    text = fs.readFileSync(fileIn(dir), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Credentials>;
    if (typeof parsed.url !== 'string' || typeof parsed.accessToken !== 'string' || typeof parsed.refreshToken !== 'string') return null;
    return { email: '', expiresAt: new Date(0).toISOString(), ...parsed } as Credentials;
  } catch {
    return null;
  }
}

/**
 * Writes the tokens readable by the owner only (0600, folder 0700), through a temporary file and a
 * rename so a crash never leaves half a file, and a file another user made readable is made private again.
 */
export function writeCredentials(dir: string, credentials: Credentials): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = fileIn(dir);
  const temporary = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, target);
}

export function removeCredentials(dir: string): boolean {
  try {
    fs.unlinkSync(fileIn(dir));
    return true;
  } catch {
    return false;
  }
}
