import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineError, runToFile } from '../../../server/engines/processRunner';

// A tool (pg_dump) writing its output straight into a file the server made: the bytes never pass
// through the server, the tool's user needs no access to the folder, and a planted link is not followed.

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-run-to-file-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('writes the tool’s stdout into the file, hands over its stderr lines and answers the size', async () => {
  const file = path.join(dir, 'out.dump');
  const lines: string[] = [];
  const sizes: number[] = [];
  const bytes = await runToFile(null, '/bin/sh', ['-c', 'printf "dumping one\\n" >&2; printf abcdef; printf "done\\n" >&2'], file, {
    onStderrLine: (line) => lines.push(line),
    onBytes: (size) => sizes.push(size),
  });
  expect(bytes).toBe(6);
  expect(fs.readFileSync(file, 'utf8')).toBe('abcdef');
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(lines).toEqual(['dumping one', 'done']);
  expect(sizes.at(-1)).toBe(6);
});

const asNobody = process.getuid?.() === 0 ? test : test.skip;

asNobody('lets a user who cannot enter the folder write the file (the server opens it)', async () => {
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, 'out.dump');
  await runToFile({ uid: 65534, gid: 65534, name: 'nobody' }, '/bin/sh', ['-c', `id -u; test -w ${dir} && exit 1; exit 0`], file);
  expect(fs.readFileSync(file, 'utf8').trim()).toBe('65534');
  expect(fs.statSync(file).uid).toBe(0);
});

test('refuses a file that exists, so a planted link is neither followed nor changed', async () => {
  const precious = path.join(dir, 'precious');
  fs.writeFileSync(precious, 'do not touch\n');
  const file = path.join(dir, 'out.dump');
  fs.symlinkSync(precious, file);
  await expect(runToFile(null, '/bin/sh', ['-c', 'printf overwritten'], file)).rejects.toMatchObject({ code: 'EEXIST' });
  expect(fs.readFileSync(precious, 'utf8')).toBe('do not touch\n');
  expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
});

test('rejects with the tool’s last stderr lines when it fails', async () => {
  const file = path.join(dir, 'out.dump');
  const failing = runToFile(null, '/bin/sh', ['-c', 'printf partial; printf "connection lost\\n" >&2; exit 3'], file);
  await expect(failing).rejects.toThrow(EngineError);
  await expect(failing).rejects.toThrow(/sh failed \(exit 3\): connection lost/);
});

test('answers the size when the tool exits with a code the caller accepts, and still fails on any other', async () => {
  const accepted = path.join(dir, 'accepted.tar');
  await expect(runToFile(null, '/bin/sh', ['-c', 'printf abc; exit 1'], accepted, { okExitCodes: [1] })).resolves.toBe(3);
  const refused = path.join(dir, 'refused.tar');
  await expect(runToFile(null, '/bin/sh', ['-c', 'printf abc; printf "cannot read\\n" >&2; exit 2'], refused, { okExitCodes: [1] })).rejects.toThrow(
    /sh failed \(exit 2\): cannot read/,
  );
});
