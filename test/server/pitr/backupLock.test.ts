import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backupLockPercent } from '../../../server/engines/pgArchive';

describe("a running backup's progress, from pgBackRest's backup lock", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-lock-'));
  const lock = path.join(dir, 'pg-backup.lock');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the percent done from pctCplt, in hundredths, as pgBackRest 2.45 writes it', () => {
    fs.writeFileSync(lock, '{"execId":"12681-181b1d50","pctCplt":1597,"pid":12681}');
    expect(backupLockPercent(lock)).toBe(15.97);
    fs.writeFileSync(lock, '{"execId":"12681-181b1d50","pctCplt":10000,"pid":12681}');
    expect(backupLockPercent(lock)).toBe(100);
  });

  it('says nothing before pgBackRest does, without a lock, or from a lock it cannot believe', () => {
    fs.writeFileSync(lock, '{"execId":"12681-181b1d50","pid":12681}');
    expect(backupLockPercent(lock)).toBeNull();
    fs.writeFileSync(lock, '{"pctCplt":99999}');
    expect(backupLockPercent(lock)).toBeNull();
    expect(backupLockPercent(path.join(dir, 'absent.lock'))).toBeNull();
  });
});
