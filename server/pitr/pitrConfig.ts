import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import type { PitrOptions } from '../engines/pgArchive';

/**
 * The archiving this server does: pgBackRest's binary and where the repositories go, or why there is
 * none (turned off, or pgBackRest not installed), for the Debug page and the recovery window.
 */
export function pitrOptions(config: Pick<Config, 'pitr' | 'dataDir'>): { options: PitrOptions | undefined; reason: string | null } {
  const pitr = config.pitr;
  if (!pitr?.enabled) return { options: undefined, reason: 'WAL archiving is turned off on this server (WARDEN_PITR=off).' };
  if (!fs.existsSync(pitr.bin)) {
    return { options: undefined, reason: `pgBackRest is not installed at ${pitr.bin}: install the Debian package pgbackrest to archive WAL.` };
  }
  const repository = pitr.s3 ? { kind: 's3' as const, ...pitr.s3 } : { kind: 'local' as const, root: path.join(config.dataDir, 'pitr') };
  return { options: { bin: pitr.bin, repository }, reason: null };
}

/** What the Debug page says of archiving: on or off and why, and where the repositories are. */
export function pointInTimeFacts(config: Pick<Config, 'pitr' | 'dataDir'>) {
  const { options, reason } = pitrOptions(config);
  if (!options) return { active: false, repository: null, location: null, reason };
  const repo = options.repository;
  const location = repo.kind === 'local' ? repo.root : `https://${repo.endpoint}/${repo.bucket}/${repo.prefix}`;
  return { active: true, repository: repo.kind, location, reason: null };
}
