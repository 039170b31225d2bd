import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type AppDeps } from '../../server/app';
import type { Config } from '../../server/config';
import type { Db } from '../../server/db/schema';
import { createUser } from '../../server/db/users';
import { debianEngineBinaries } from '../../server/engines/detect';
import type { Role } from '../../contracts/roles';
import { closeTestDb, openTestDb } from './testStore';

export const origin = 'http://127.0.0.1:8080';
export const goodPassword = 'Correct-Horse-7';

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir: path.join(os.tmpdir(), 'warden-test-unused'),
    publicUrl: origin,
    allowedOrigins: [origin],
    adminEmail: 'admin@warden.local',
    adminPassword: undefined,
    // A folder that does not exist: the SPA is "not built" unless a test says otherwise.
    staticDir: path.join(os.tmpdir(), 'warden-test-no-spa'),
    logLevel: 'silent',
    loginRateLimit: 1000,
    instanceCreateRateLimit: 1000,
    engines: debianEngineBinaries,
    ...overrides,
  };
}

/** A clock that stands still until a test moves it. */
export function fakeClock(start = '2030-01-02T03:04:05.000Z') {
  let now = new Date(start);
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
    },
  };
}

export interface Harness {
  app: ReturnType<typeof buildApp>;
  db: Db;
  clock: ReturnType<typeof fakeClock>;
  close(): Promise<void>;
}

/**
 * A fresh app over a migrated in-memory store and a fake clock, silent unless a logger is given.
 * Any other app dependency is passed through. Close it in afterEach.
 */
export async function setup(
  options: { config?: Partial<Config> } & Omit<AppDeps, 'db' | 'clock'> = {},
): Promise<Harness> {
  const { config, ...deps } = options;
  const db = await openTestDb();
  const clock = fakeClock();
  const app = buildApp(testConfig(config), { ...deps, db, clock: clock.now, logger: deps.logger ?? false });
  return {
    app,
    db,
    clock,
    async close() {
      await app.close();
      await closeTestDb(db);
    },
  };
}

export function addUser(db: Db, email: string, role: Role = 'regular', password = goodPassword) {
  return createUser(db, { email, password, role });
}

export function login(
  h: Harness,
  body: Record<string, unknown>,
  query = '',
): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: 'POST', url: `/auth/login${query}`, payload: body });
}

/** Signs in with a persistent cookie and answers the cookie header to send back. */
export async function cookieLogin(h: Harness, email: string, password = goodPassword): Promise<string> {
  const res = await login(h, { email, password }, '?useCookies=true');
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === 'warden_session');
  if (!cookie) throw new Error('no session cookie');
  return `warden_session=${cookie.value}`;
}

export async function bearerLogin(h: Harness, email: string, password = goodPassword): Promise<string> {
  const res = await login(h, { email, password });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return `Bearer ${res.json().accessToken}`;
}

/** Asserts the answer is a problem details document and returns it. */
export function expectProblem(res: LightMyRequestResponse, status: number) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body.status).toBe(status);
  expect(typeof body.type).toBe('string');
  expect(typeof body.title).toBe('string');
  return body as { type: string; title: string; status: number; detail?: string; errors?: Record<string, string[]> };
}

/** Whether a process of this pid exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
