import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp, type App } from './app';
import { ensureFirstAdmin, type FirstAdmin } from './auth/firstAdmin';
import { loadConfig, type Config } from './config';
import { migrateToLatest, requireMigrated } from './db/migrations';
import { openDb } from './db/open';
import { checkConfinement } from './engines/confinement';
import { Startup } from './startup';
import { mapStackTraces } from './stackTraces';
import type { Db } from './db/schema';

export interface RunningServer {
  app: App;
  db: Db;
  /** Where it listens, with the real port when WARDEN_PORT=0, e.g. http://127.0.0.1:41234. */
  url: string;
  /** The start's phases and the background work it still runs (on /healthz too). */
  startup: Startup;
  /** Stops accepting requests, finishes the ones in flight, closes the store. */
  close(): Promise<void>;
}

export interface StartDeps {
  /** Receives the lines an operator must see (first-admin box, listening address); stdout by default. */
  print?: (text: string) => void;
}

/** The block that tells the operator the first admin's credentials, printed once on an empty store. */
export function firstAdminBanner(admin: FirstAdmin): string {
  const lines = [
    'Warden created the first administrator account:',
    '',
    `  e-mail:   ${admin.email}`,
    admin.generated ? `  password: ${admin.password}` : '  password: the value of WARDEN_ADMIN_PASSWORD',
    '',
    admin.generated ? 'Store this password now: it is not shown again.' : 'Sign in with it and keep it safe.',
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const rule = `+${'-'.repeat(width + 2)}+`;
  return [rule, ...lines.map((line) => `| ${line.padEnd(width)} |`), rule].join('\n');
}

/**
 * Opens and migrates the store, makes sure an admin exists, and listens; what the first request does not
 * need (adopting instances, recovery, schedules, checks) runs right after, under `startup`. Reusable by scripts.
 */
export async function startServer(config: Config, deps: StartDeps = {}): Promise<RunningServer> {
  const startup = new Startup();
  startup.mark('processUp');
  const print = deps.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const db = openDb(config);
  let admin: FirstAdmin | null;
  try {
    // An agent changes no schema and makes no account: servers do.
    if (config.role === 'agent') {
      await requireMigrated(db);
      admin = null;
    } else {
      await migrateToLatest(db);
      admin = await ensureFirstAdmin(db, config);
    }
  } catch (error) {
    await db.destroy();
    throw error;
  }

  startup.mark('storeOpen');

  const app = buildApp(config, { db, startup });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close();
    await db.destroy();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  print(`Warden listening on ${url}`);
  const warnUnconfined = async () => {
    const confinement = await checkConfinement();
    if (!confinement.active) print(`Warning: ${confinement.reason} See the README's security section.`);
  };
  if (admin) {
    // A first start waits for the check: the banner comes last, so that nothing pushes it out of sight.
    await warnUnconfined();
    print(firstAdminBanner(admin));
  } else {
    void startup.run([['confinement check', warnUnconfined]], (_name, error) => app.log.error({ err: error }, 'Could not check confinement'));
  }

  return {
    app,
    db,
    url,
    startup,
    async close() {
      await app.close();
      await db.destroy();
    },
  };
}

/**
 * The last line of defence (DESIGN §11): an error that escaped every handler is logged, with its
 * stack, only to the server's log, and the process keeps serving everyone else. If it dies anyway,
 * systemd starts it again (deploy/warden.service).
 */
export function guardProcess(log: Pick<FastifyBaseLogger, 'error'>): void {
  process.on('uncaughtException', (error, origin) => log.error({ err: error, origin }, 'Uncaught exception; Warden keeps serving'));
  // With a listener, Node no longer turns an unhandled rejection into a crash.
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'Unhandled promise rejection; Warden keeps serving'));
}

async function main(): Promise<void> {
  const server = await startServer(loadConfig());
  guardProcess(server.app.log);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'Shutting down');
    // A client that will not let go must not keep the process alive: in-flight work gets 10 s.
    setTimeout(() => {
      server.app.log.warn('Shutdown took over 10 s; exiting anyway');
      process.exit(1);
    }, 10_000).unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'Shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** The process entry: the compiled server's loader (server/bootstrap.ts) calls it, and so does tsx server/main.ts. */
export function run(): void {
  // The compiled bundle (build/server/server.js) names TypeScript lines in its traces; under tsx they already do.
  if (__filename.endsWith('.js') && !process.sourceMapsEnabled) mapStackTraces(__filename);
  main().catch((error: unknown) => {
    process.stderr.write(`Warden failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

// Runs only as the process entry (tsx server/main.ts), not when a script or test imports startServer.
if (require.main === module) run();
