import path from 'node:path';
import { loadConfig, type Config } from '../../server/config';

/** A server's config for a bench: loopback, any free port, no console, no logging, the given data dir. */
export function benchConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    WARDEN_HOST: '127.0.0.1',
    WARDEN_PORT: '0',
    WARDEN_DATA_DIR: dataDir,
    WARDEN_STATIC_DIR: path.join(dataDir, 'no-console'),
    WARDEN_LOG_LEVEL: 'silent',
    ...env,
  });
}
