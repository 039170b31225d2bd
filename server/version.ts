import fs from 'node:fs';
import path from 'node:path';

/** Warden's own version, from package.json; read once. */
export const wardenVersion: string = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '..', 'package.json'), 'utf8'),
).version;
