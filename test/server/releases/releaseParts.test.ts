import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { changelogNotes } from '../../../server/releases/changelog';
import { parseLdd } from '../../../server/releases/oci';
import { zipArchive } from '../../../server/releases/zip';

// The small parts of a release build, on their own: what ldd says, which changelog section a
// version gets, and the zip writer.

const run = promisify(execFile);

describe('parseLdd', () => {
  it('answers every library path and the loader, without the vdso', () => {
    const output = [
      '\tlinux-vdso.so.1 (0x00007ffd5c3f2000)',
      '\tlibdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f0c1a0a0000)',
      '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f0c19e00000)',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f0c19c1e000)',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f0c1a0b7000)',
    ].join('\n');
    expect(parseLdd(output)).toEqual([
      '/lib/x86_64-linux-gnu/libdl.so.2',
      '/lib/x86_64-linux-gnu/libstdc++.so.6',
      '/lib/x86_64-linux-gnu/libc.so.6',
      '/lib64/ld-linux-x86-64.so.2',
    ]);
  });

  it('fails on a library the loader cannot find', () => {
    expect(() => parseLdd('\tlibssl.so.3 => not found\n')).toThrow('A library the binary needs is missing: libssl.so.3 => not found');
  });
});

describe('changelogNotes', () => {
  const changelog = '# Changelog\n\n## [0.2.0]\n### Added\n- scripts\n\n## [0.1.0]\n- first\n';

  it('answers the section of the version, or of its package version for a build version', () => {
    expect(changelogNotes(changelog, '0.2.0')).toBe('### Added\n- scripts');
    expect(changelogNotes(changelog, '0.1.0-be60504-dirty')).toBe('- first');
  });

  it('answers nothing for a version without a section', () => {
    expect(changelogNotes(changelog, '0.3.0')).toBe('');
  });
});

describe('zipArchive', () => {
  it('writes an archive unzip reads back, the same bytes every time', async () => {
    const entries = [
      { name: 'warden.exe', data: Buffer.alloc(100_000, 7), mode: 0o755 },
      { name: 'README.txt', data: Buffer.from('Read me\r\n') },
    ];
    const zip = zipArchive(entries);
    expect(zipArchive(entries).equals(zip)).toBe(true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-zip-'));
    try {
      const file = path.join(dir, 'a.zip');
      fs.writeFileSync(file, zip);
      await run('unzip', ['-tq', file]);
      await run('unzip', ['-q', file, '-d', path.join(dir, 'out')]);
      expect(fs.readFileSync(path.join(dir, 'out', 'README.txt'), 'utf8')).toBe('Read me\r\n');
      expect(fs.readFileSync(path.join(dir, 'out', 'warden.exe')).equals(entries[0].data)).toBe(true);
      expect(fs.statSync(path.join(dir, 'out', 'warden.exe')).mode & 0o777).toBe(0o755);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
