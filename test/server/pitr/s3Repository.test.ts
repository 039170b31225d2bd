import fs from 'node:fs';
import path from 'node:path';
import type { RecoveryWindow } from '../../../contracts/pitr';
import { instanceWorld, type InstanceWorld } from '../instances/world';
import { superuserSql } from './superuserSql';
import { startLocalS3, type LocalS3 } from './s3Server';

// The WAL archive in an S3-compatible bucket (an s3rver over TLS on this machine, with a certificate
// of its own, so verification is off as for a private CA not given): archiving, a full backup and a
// restore go through it, under the bucket's prefix and the instance's id, encrypted with its key.

jest.setTimeout(240_000);

let s3: LocalS3;
let world: InstanceWorld;

/** s3rver keeps an object `key` on disk as `<bucket>/key._S3rver_object`. */
const objectSuffix = '._S3rver_object';
const objectFile = (key: string) => path.join(s3.dir, s3.bucket, `${key}${objectSuffix}`);

/** The keys of every object of the bucket below a prefix. */
function objectsUnder(prefix: string): string[] {
  const root = path.join(s3.dir, s3.bucket, prefix);
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith(objectSuffix)).map((f) => f.slice(0, -objectSuffix.length));
}

const sql = superuserSql(() => world);

beforeAll(async () => {
  s3 = await startLocalS3();
  world = await instanceWorld({
    pitr: { s3: { endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', key: 'S3RVER', secret: 'S3RVER', prefix: 'warden-test', verifyTls: false, caFile: null } },
  });
});

afterAll(async () => {
  await world?.destroy();
  await s3?.close();
});

it('archives, backs up and restores through the bucket, under the prefix and the instance\'s id, encrypted', async () => {
  const source = await world.created({ name: 'ledger', type: 'pg' });
  await sql(source.id, 'create table entries as select generate_series(1, 500) as n');
  const taken = await world.call('POST', `/instances/${source.id}/backups/database/backup`, { kind: 'full' });
  expect(taken.statusCode).toBe(202);
  await world.backups().idle();

  const window = (await world.call('GET', `/instances/${source.id}/recovery-window`)).json() as RecoveryWindow;
  expect(window).toMatchObject({ enabled: true, repository: 's3' });
  expect(window.backups.map((b) => b.kind)).toEqual(['full']);
  const objects = objectsUnder(`warden-test/${source.id}`);
  expect(objects.some((o) => o.startsWith('archive/warden/'))).toBe(true);
  expect(objects.some((o) => o.startsWith('backup/warden/'))).toBe(true);
  // Nothing of the repository on this server's disk.
  expect(fs.existsSync(path.join(world.dataDir, 'pitr'))).toBe(false);
  const info = fs.readFileSync(objectFile(`warden-test/${source.id}/backup/warden/backup.info`));
  expect(info.subarray(0, 8).toString('latin1')).toBe('Salted__');

  const res = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'ledger-copy', target: 'latest' });
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  const copy = await world.instance(res.json().id);
  expect(copy.status).toBe('running');
  expect(await sql(copy.id, 'select count(*)::int as n from entries')).toEqual([{ n: 500 }]);

  // Deleting an instance deletes its stanza from the bucket.
  await world.call('POST', `/instances/${copy.id}/stop`, {});
  await world.service().idle();
  expect(objectsUnder(`warden-test/${copy.id}`).length).toBeGreaterThan(0);
  expect((await world.call('DELETE', `/instances/${copy.id}?force=true`)).statusCode).toBe(200);
  await world.service().idle();
  expect(objectsUnder(`warden-test/${copy.id}`)).toEqual([]);
});
