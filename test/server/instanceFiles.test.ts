import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeInstanceFile } from '../../server/engines/instanceFiles';

// A root server writes into folders instances own: a link planted there must never steer the write.

let dir: string;
let instance: string;
let outside: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-files-'));
  instance = path.join(dir, 'instance');
  fs.mkdirSync(path.join(instance, 'data'), { recursive: true });
  outside = path.join(dir, 'precious');
  fs.writeFileSync(outside, 'do not touch\n');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('replaces a planted link with the file instead of writing through it', () => {
  const target = path.join(instance, 'data', 'postgresql.auto.conf');
  fs.symlinkSync(outside, target);

  writeInstanceFile(target, "work_mem = '8MB'\n", { within: instance });

  expect(fs.lstatSync(target).isSymbolicLink()).toBe(false);
  expect(fs.readFileSync(target, 'utf8')).toBe("work_mem = '8MB'\n");
  expect(fs.statSync(target).mode & 0o777).toBe(0o600);
  expect(fs.readFileSync(outside, 'utf8')).toBe('do not touch\n');
  expect(fs.readdirSync(path.join(instance, 'data'))).toEqual(['postgresql.auto.conf']);
});

test('refuses a folder swapped for a link that leads out of the instance', () => {
  fs.rmSync(path.join(instance, 'data'), { recursive: true });
  fs.symlinkSync(dir, path.join(instance, 'data'));

  expect(() => writeInstanceFile(path.join(instance, 'data', 'precious'), 'owned\n', { within: instance })).toThrow(/leads outside the instance's folder/);
  expect(fs.readFileSync(outside, 'utf8')).toBe('do not touch\n');
});

// Giving a file away takes root, as the server that runs instances under their own users is.
(process.getuid?.() === 0 ? test : test.skip)('hands the file to the owner it is given', () => {
  const target = path.join(instance, 'owned');
  writeInstanceFile(target, 'x', { within: instance, owner: { uid: 65534, gid: 65534, name: 'nobody' }, mode: 0o640 });
  const stat = fs.statSync(target);
  expect([stat.uid, stat.gid, stat.mode & 0o777]).toEqual([65534, 65534, 0o640]);
});
