import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { debianEngineBinaries } from '../../../server/engines/detect';

// etcdctl against a test's etcd instance, as a process on the host runs it: as the owner or root
// (their passwords read from the instance folder, as the tests run as the server's user), as any
// user and password, or without credentials.

export interface EtcdMember {
  port: number;
  /** The instance folder, where the passwords are kept. */
  dir: string;
}

export type EtcdLogin = 'owner' | 'root' | 'nobody' | { user: string; password: string };

export const secretOf = (member: EtcdMember, name: 'owner' | 'root') => fs.readFileSync(path.join(member.dir, `${name}.password`), 'utf8').trim();

function credentials(member: EtcdMember, as: EtcdLogin): Record<string, string> {
  if (as === 'nobody') return {};
  const login = as === 'owner' ? { user: 'app', password: secretOf(member, 'owner') } : as === 'root' ? { user: 'root', password: secretOf(member, 'root') } : as;
  return { ETCDCTL_USER: login.user, ETCDCTL_PASSWORD: login.password };
}

/** etcdctl's exit status and output; the credentials go through the environment, as Warden passes them. */
export function etcdctlAs(member: EtcdMember, as: EtcdLogin, args: string[], input?: string) {
  const ran = spawnSync(debianEngineBinaries.etcdctlBin, [`--endpoints=http://127.0.0.1:${member.port}`, ...args], {
    env: { PATH: process.env.PATH, ETCDCTL_API: '3', ...credentials(member, as) },
    input,
    encoding: 'utf8',
  });
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

/** etcdctl run as `as` must fail, saying why in etcd's words. */
export function expectRefused(member: EtcdMember, as: EtcdLogin, args: string[], why: RegExp) {
  const ran = etcdctlAs(member, as, args);
  expect(ran.status).not.toBe(0);
  expect(ran.stderr).toMatch(why);
}

/** etcdctl as `as` (the owner unless told), failing the test when it fails; answers its output. */
export function etcdctl(member: EtcdMember, args: string[], options: { as?: EtcdLogin; input?: string } = {}): string {
  const ran = etcdctlAs(member, options.as ?? 'owner', args, options.input);
  if (ran.status !== 0) throw new Error(`etcdctl ${args.join(' ')} exited ${ran.status}: ${ran.stderr}`);
  return ran.stdout;
}
