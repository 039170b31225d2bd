import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from 'typebox';
import { AllBackupsPage, Backup, BackupSchedule, BackupsSummary } from '../../../contracts/backups';
import { aBackup, allBackupsPageOf, aRunningBackup, aSchedule, aSummary } from '../handlers/backupsHandlers';

// The screens' tests answer with these factories; they must be what the server may send.
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
const errorsOf = (schema: TSchema, value: unknown) => {
  const check = ajv.compile(schema);
  return check(value) ? [] : check.errors;
};

describe('backup fixtures follow the contract', () => {
  it.each([
    ['a succeeded backup', Backup, aBackup()],
    ['a running backup', Backup, aRunningBackup()],
    ['a failed file backup', Backup, aBackup({ kind: 'file', status: 'failed', error: 'tar: disk full', sha256: null, sizeBytes: null, contents: null })],
    ['a summary', BackupsSummary, aSummary([aBackup(), aRunningBackup(), aBackup({ id: 'f-1', kind: 'file' })])],
    ['a schedule', BackupSchedule, aSchedule()],
    ['a page of all backups', AllBackupsPage, allBackupsPageOf([aBackup(), aRunningBackup()])],
  ])('%s', (_what, schema, value) => {
    expect(errorsOf(schema, value)).toEqual([]);
  });

  it('would notice a backup that is not one', () => {
    expect(errorsOf(Backup, { ...aBackup(), status: 'done' })).not.toEqual([]);
    const { sha256: _dropped, ...withoutChecksum } = aBackup();
    expect(errorsOf(Backup, withoutChecksum)).not.toEqual([]);
  });
});
