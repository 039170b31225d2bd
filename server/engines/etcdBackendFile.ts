import fs from 'node:fs';
import { EngineError } from './processRunner';

// The one change Warden makes to a stopped etcd member's backend file (member/snap/db, a bbolt
// database): turning authentication off in a member restored from a backup. The snapshot carries
// its source's users and passwords, which a backup does not keep, so the restored member's first
// start could not log in; with auth off, that start gives it passwords of its own and turns auth on
// again (etcdAuth.ts). The value is one byte, changed in place: no page moves, and bbolt keeps no
// checksum over data pages. The layout read here is bbolt's on-disk format (page.go, node.go):
// little-endian, 16-byte page headers, 16-byte elements, a key's value right after the key.

const pageHeaderBytes = 16;
const elementBytes = 16;
const branchPage = 0x01;
const leafPage = 0x02;
const bucketLeaf = 0x01;
const bboltMagic = 0xed0cdaed;

/** etcd's auth bucket and its enabled flag (mvcc/backend, auth/store.go): 1 on, 0 off. */
const authBucket = Buffer.from('auth');
const authEnabledKey = Buffer.from('authEnabled');

interface Page {
  /** Where the page starts in the file. */
  at: number;
  bytes: Buffer;
}

function fnv1a64(bytes: Buffer): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of bytes) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return hash;
}

function readAt(fd: number, at: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  const read = fs.readSync(fd, bytes, 0, length, at);
  if (read !== length) throw new EngineError('The etcd backend file is cut short.');
  return bytes;
}

/** A meta page's fields (bbolt's meta struct, after the page header) when its checksum holds. */
function readMeta(fd: number, at: number) {
  const meta = readAt(fd, at + pageHeaderBytes, 64);
  if (meta.readUInt32LE(0) !== bboltMagic || fnv1a64(meta.subarray(0, 56)) !== meta.readBigUInt64LE(56)) return null;
  return { pageSize: meta.readUInt32LE(8), root: Number(meta.readBigUInt64LE(16)), txid: meta.readBigUInt64LE(48) };
}

/** The page size and the root bucket's page, from the newer valid meta page (bbolt writes them in turn). */
function rootPage(fd: number): { pageSize: number; root: number } {
  const first = readMeta(fd, 0);
  // Without a valid first meta page, bbolt looks for the second one page size away, as here.
  const second = readMeta(fd, first?.pageSize ?? 4096);
  const newer = first && second ? (second.txid > first.txid ? second : first) : (first ?? second);
  if (!newer) throw new EngineError('The etcd backend file has no valid meta page.');
  return newer;
}

function readPage(fd: number, pageSize: number, id: number): Page {
  const at = id * pageSize;
  const overflow = readAt(fd, at, pageHeaderBytes).readUInt32LE(12);
  return { at, bytes: readAt(fd, at, (overflow + 1) * pageSize) };
}

/** The value of `key` in the tree rooted at `page` (pages read from the file), as its place in the file. */
function find(fd: number, pageSize: number, page: Page, key: Buffer): { at: number; bytes: Buffer; flags: number } | null {
  for (;;) {
    const { bytes } = page;
    const flags = bytes.readUInt16LE(8);
    const count = bytes.readUInt16LE(10);
    const element = (i: number) => pageHeaderBytes + i * elementBytes;
    if (flags & branchPage) {
      // The last child whose first key is not above the key sought.
      let child = bytes.readBigUInt64LE(element(0) + 8);
      for (let i = 0; i < count; i++) {
        const e = element(i);
        const start = e + bytes.readUInt32LE(e);
        if (Buffer.compare(bytes.subarray(start, start + bytes.readUInt32LE(e + 4)), key) > 0) break;
        child = bytes.readBigUInt64LE(e + 8);
      }
      page = readPage(fd, pageSize, Number(child));
      continue;
    }
    if (!(flags & leafPage)) throw new EngineError('The etcd backend file holds an unexpected page.');
    for (let i = 0; i < count; i++) {
      const e = element(i);
      const start = e + bytes.readUInt32LE(e + 4);
      const keySize = bytes.readUInt32LE(e + 8);
      if (!bytes.subarray(start, start + keySize).equals(key)) continue;
      const value = start + keySize;
      return { at: page.at + value, bytes: bytes.subarray(value, value + bytes.readUInt32LE(e + 12)), flags: bytes.readUInt32LE(e) };
    }
    return null;
  }
}

/** Turns authentication off in a stopped member's backend file; answers whether it was on. */
export function disableAuthInBackend(dbFile: string): boolean {
  const fd = fs.openSync(dbFile, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW);
  try {
    const { pageSize, root } = rootPage(fd);
    const bucket = find(fd, pageSize, readPage(fd, pageSize, root), authBucket);
    if (!bucket) return false;
    if (!(bucket.flags & bucketLeaf)) throw new EngineError('The etcd backend file has no auth bucket.');
    const bucketRoot = Number(bucket.bytes.readBigUInt64LE(0));
    // A small bucket is stored inline: its page follows its 16-byte header inside the value.
    const bucketPage = bucketRoot === 0 ? { at: bucket.at + 16, bytes: bucket.bytes.subarray(16) } : readPage(fd, pageSize, bucketRoot);
    const enabled = find(fd, pageSize, bucketPage, authEnabledKey);
    if (!enabled || enabled.bytes.length !== 1 || enabled.bytes[0] !== 1) return false;
    fs.writeSync(fd, Buffer.from([0]), 0, 1, enabled.at);
    fs.fsyncSync(fd);
    return true;
  } finally {
    fs.closeSync(fd);
  }
}
