import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/**
 * An S3-compatible server on this machine over TLS (s3rver, with a self-signed certificate made
 * for the run): the stand-in for a real bucket, which cannot be reached from here.
 */
export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** Where s3rver keeps the objects: `<dir>/<bucket>/<key>`. */
  dir: string;
  close(): Promise<void>;
}

export async function startLocalS3(bucket = 'wal'): Promise<LocalS3> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-s3-'));
  const key = path.join(root, 'key.pem');
  const cert = path.join(root, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {
    stdio: 'ignore',
  });
  const dir = path.join(root, 'objects');
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: dir,
    key: fs.readFileSync(key),
    cert: fs.readFileSync(cert),
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = (await server.run()) as { port: number };
  return {
    endpoint: `127.0.0.1:${port}`,
    bucket,
    dir,
    async close() {
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
