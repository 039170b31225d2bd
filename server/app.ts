import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { hasRole } from '../contracts/roles';
import { createAuthorization } from './authz/authorization';
import { systemClock, type Clock } from './clock';
import type { Config, LogLevel } from './config';
import type { AppContext } from './context';
import type { GroupInstances } from './db/groups';
import { groupInstancesFromTable } from './db/instances';
import { migrateToLatest, requireMigrated } from './db/migrations';
import { openDb } from './db/open';
import type { Db } from './db/schema';
import { accessControl, requireAccessRule } from './http/auth';
import { loggerOptions, type LogStream } from './http/logging';
import { openApi } from './http/openapi';
import { handleClientError, handleFrameworkError, HttpProblem, registerProblemHandlers } from './http/problems';
import { securityHeaders } from './http/security';
import { spa } from './http/spa';
import { schemaCompilers } from './http/lazySchemas';
import { InProcessBus, type EventBus } from './hub/bus';
import { PostgresBus } from './hub/postgresBus';
import { sharedRateLimitStore } from './auth/sharedRateLimits';
import { defaultHubLimits, Hub, type HubLimits } from './hub/hub';
import { groupMethods } from './hub/methods';
import { hubRoute } from './hub/route';
import { pathRedactor } from './instances/redact';
import { adminRoutes } from './routes/admin';
import { auditRoutes } from './routes/audit';
import { authRoutes } from './routes/auth';
import { debugRoutes } from './routes/debug';
import { groupRoutes } from './routes/groups';
import { healthRoutes } from './routes/health';
import { outboxRoutes } from './routes/outbox';
import { instanceClusterRoutes } from './routes/instanceCluster';
import { instanceConnectionRoutes } from './routes/instanceConnection';
import { instanceRoutes } from './routes/instances';
import { pitrRoutes } from './routes/pitr';
import { PitrService } from './pitr/pitrService';
import { pitrOptions } from './pitr/pitrConfig';
import { instanceConfigRoutes } from './routes/instanceConfig';
import { databaseRoutes } from './routes/databases';
import { logRoutes } from './routes/logs';
import { statisticsRoutes } from './routes/statistics';
import { MetricsCollector } from './metrics/collector';
import { StatisticsPublisher } from './statistics/publisher';
import { LogRetention } from './logs/retention';
import { etcdEngine } from './engines/etcd';
import type { Engine } from './engines/engine';
import { pgEngine } from './engines/pg';
import { InstanceService } from './instances/instanceService';
import { LogService } from './logs/logService';
import { BackupService } from './backups/backupService';
import { LocalDirectoryStorage, type BackupStorage } from './backups/storage';
import { backupRoutes, instanceBackupRoutes } from './routes/backups';
import { scriptRoutes } from './routes/scripts';
import { ScriptService } from './scripts/scriptService';
import { clientVersionRoutes } from './routes/clientVersions';
import { ClientBuilds } from './releases/clientBuilds';
import { ReleaseCatalog, releasesDir } from './releases/releaseCatalog';
import path from 'node:path';
import { instanceDefaults, logDefaults } from './config';
import { HostAgent } from './hosts/hostAgent';
import { HostWatch } from './hosts/hostWatch';
import { acceptForwardedOnly, forwardToHosts } from './hosts/forwarding';
import { hostRoutes } from './routes/hosts';
import { awaitStartup, Startup } from './startup';

export interface AppDeps {
  /** A store to use instead of opening `<dataDir>/warden.sqlite`; the caller keeps ownership and closes it. */
  db?: Db;
  clock?: Clock;
  /** false silences logging; otherwise overrides the level and where lines go (redaction always applies). */
  logger?: false | { level?: LogLevel; stream?: LogStream };
  /** In-process by default; several server processes would share a PostgreSQL LISTEN/NOTIFY bus. */
  bus?: EventBus;
  hubLimits?: HubLimits;
  /** What groups know of instances: the instances table unless a test supplies its own. */
  groupInstances?: GroupInstances;
  /** Engines to run instances with; the Debian binaries of the config by default. */
  engines?: Record<'pg' | 'etcd', Engine>;
  /** Where backups are written; a folder under the data dir by default. */
  storage?: BackupStorage;
  /** false: no reconcile, health probes, log tailing, backup recovery or schedules at start (tests that drive them by hand). */
  supervise?: boolean;
  /**
   * A start that listens first (startServer): adopting instances, recovery, schedules and the engine
   * catalogue run right after listening, named on /healthz until done. Without one, `ready()` waits for
   * that work, as tests that inject calls expect.
   */
  startup?: Startup;
}

/**
 * The whole HTTP application, not yet listening: tests call inject(), main calls listen().
 * Routes may still be added until it is ready; every route must declare `config.access`.
 */
export function buildApp(config: Config, deps: AppDeps = {}) {
  const db = deps.db ?? openDb(config);
  // Several servers on one PostgreSQL store deliver each other's events through it.
  const bus = deps.bus ?? (config.databaseUrl ? new PostgresBus({ url: config.databaseUrl, db, warn: (message, err) => app.log.warn({ err }, message) }) : new InProcessBus());

  const app = Fastify({
    logger: deps.logger === false ? false : loggerOptions(deps.logger?.level ?? config.logLevel, deps.logger?.stream),
    genReqId: () => randomUUID(),
    // Errors raised before a route runs (HTTP parser, router) answer problems too (DESIGN §6).
    clientErrorHandler: handleClientError,
    frameworkErrors: handleFrameworkError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  const schemas = schemaCompilers();
  app.setValidatorCompiler(schemas.validatorCompiler);
  app.setSerializerCompiler(schemas.serializerCompiler);
  const startup = deps.startup ?? new Startup();
  const afterListen = deps.startup !== undefined;
  const onStepError = (name: string, error: unknown) => app.log.error({ err: error, step: name }, `Start-up step failed: ${name}`);

  const groupInstances = deps.groupInstances ?? groupInstancesFromTable;
  // One authorization layer for the routes and the hub, so Join{Name} checks what the API checks.
  const authz = createAuthorization(db, groupInstances);
  // Regular users are answered and pushed texts with the server's paths hidden (admins see them whole).
  const redactor = pathRedactor(config.dataDir);
  const hub = new Hub(bus, groupMethods(authz.canSeeInstance), app.log, deps.hubLimits ?? defaultHubLimits, redactor.value);
  const clock = deps.clock ?? systemClock;
  const logs = new LogService(db, bus, clock, config.logPollMs ?? instanceDefaults.logPollMs);
  const pitr = pitrOptions(config);
  const pg = pgEngine(config.engines, { catalogDir: path.join(config.dataDir, 'engines'), pitr: pitr.options });
  const engines = deps.engines ?? { pg, etcd: etcdEngine(config.engines) };
  // A listening, supervising server reads the pg parameter catalogue in the background when none is
  // cached, so the first instance's parameters are checked without waiting; close waits for it so no
  // throwaway cluster is left behind.
  if (engines.pg === pg && deps.supervise !== false) {
    const catalogue = async () => {
      // Without PostgreSQL there is nothing to read; creating a pg instance says what to install.
      if ((await pg.unavailable()) === null) await pg.catalogue();
    };
    app.addHook('onListen', async () => {
      void startup.run([['engine catalogue', catalogue]], (_name, error) => app.log.error({ err: error }, 'Could not read the PostgreSQL parameter catalogue'));
    });
  }
  // Whatever still runs in the background (the catalogue's throwaway cluster) finishes before close.
  app.addHook('preClose', async () => startup.settled());
  const instances = new InstanceService({ db, bus, clock, config, logs, engines });
  const storage = deps.storage ?? new LocalDirectoryStorage(path.join(config.dataDir, 'backups'));
  const backups = new BackupService({ db, bus, clock, config, logs, instances, storage });
  instances.attachBackups(backups);
  const scripts = new ScriptService({ db, bus, clock, config, logs, instances, backups });
  const pointInTime = new PitrService({
    db,
    bus,
    clock,
    logs,
    instances,
    backups,
    disabledReason: pitr.reason,
    intervalMs: config.probeIntervalMs ?? instanceDefaults.probeIntervalMs,
  });
  const ctx: AppContext = { config, db, clock, bus, hub, logs, instances };
  const retention = new LogRetention(db, logs, clock, {
    maxAgeMs: config.logRetentionMs ?? logDefaults.retentionMs,
    maxBytes: config.logMaxBytes ?? logDefaults.maxBytes,
    intervalMs: logDefaults.trimIntervalMs,
  });
  const releases = new ReleaseCatalog(releasesDir(config.dataDir));
  const clientBuilds = new ClientBuilds({ config, bus, clock, log: app.log });
  // Only a listening server builds client releases, in the background: start and inject() never wait for it.
  app.addHook('onListen', async () => {
    clientBuilds.ensureCurrent().catch((error: unknown) => app.log.error({ err: error }, 'Could not check the client releases'));
  });
  app.addHook('preClose', async () => clientBuilds.close());
  const metrics = new MetricsCollector({ db, bus, clock, instances, log: app.log, intervalMs: config.metricsIntervalMs });
  const statistics = new StatisticsPublisher({ db, bus, clock, connected: () => hub.principals(), log: app.log });
  // Tell clients to reconnect (to this server's successor) before connections are torn down.
  app.addHook('preClose', async () => hub.close());

  // Added synchronously so it sees every route, including ones a test adds after buildApp returns.
  app.addHook('onRoute', requireAccessRule);
  registerProblemHandlers(app);
  // Every JSON answer (problems too) passes here: health, status reasons, operation and backup errors.
  app.addHook('preSerialization', async (request, _reply, payload: unknown) =>
    request.principal && hasRole(request.principal, 'admin') ? payload : redactor.value(payload),
  );

  const role = config.role ?? 'all';
  app.register(async () => (role === 'agent' ? requireMigrated(db) : migrateToLatest(db)));
  const warn = (message: string, err: unknown) => app.log.warn({ err }, message);
  // A process that runs instances is a host: it registers, heartbeats and runs what is queued for it.
  const hostAgent = instances.runsInstances ? new HostAgent({ db, bus, clock, config, instances, warn }) : null;
  const hostWatch = new HostWatch(instances, warn);
  const listeningPort = () => {
    const address = app.server.address();
    return address && typeof address === 'object' ? address.port : null;
  };
  // Where servers forward this host's calls: only known once listening.
  const hostAddress = async () => {
    const port = listeningPort();
    if (hostAgent && port !== null) await hostAgent.listening(port);
  };
  // After migrations; instances keep running when the server stops (close only stops watching).
  const supervision: [string, () => unknown][] = [];
  if (deps.supervise !== false && hostAgent) {
    supervision.push(['host', () => hostAgent.register()]);
    // A start that listens first knows its address by now: it is recorded before any work is taken.
    if (afterListen) supervision.push(['host address', hostAddress]);
    supervision.push(
      ['instances', () => instances.startSupervision()],
      ['backups', () => backups.start()],
      ['scripts', () => scripts.recover()],
      [
        'schedules',
        () => {
          pointInTime.start();
          metrics.start();
          hostAgent.start();
        },
      ],
    );
  }
  if (deps.supervise !== false && role !== 'agent') {
    supervision.push([
      'watches',
      () => {
        retention.start();
        statistics.start();
        hostWatch.start();
      },
    ]);
  }
  const compileRouteSchemas = (onError = (error: unknown) => app.log.error({ err: error }, 'A route schema does not compile')) =>
    schemas.compileRemaining(onError);
  if (afterListen) {
    app.addHook('onReady', async () => startup.mark('routesReady'));
    app.addHook('onListen', async () => {
      startup.mark('listening');
      void startup.run(supervision, onStepError, { gate: true });
      void startup.run([['route schemas', () => compileRouteSchemas()]], onStepError);
    });
  } else {
    app.addHook('onReady', async () => {
      for (const [, work] of supervision) await work();
    });
    app.addHook('onListen', hostAddress);
  }
  app.addHook('preClose', async () => {
    // First: an operation taken now would be cut off.
    await hostAgent?.close();
    await hostWatch.close();
    await statistics.close();
    await metrics.close();
    await retention.stop();
    await pointInTime.stop();
    // Runs first: their sandboxes are removed while the services they use still work.
    await scripts.close();
    await backups.close();
    await instances.close();
  });
  if (bus instanceof PostgresBus) {
    // Listening before the first request: an event published earlier would not reach this server's own browsers.
    app.addHook('onReady', async () => bus.started());
    // The bus's last events go out on the store before it closes.
    app.addHook('onClose', async () => bus.close());
  }
  if (!deps.db) app.addHook('onClose', async () => db.destroy());

  // Every answer names its request; a problem's body does too, and the log lines carry it as reqId.
  app.addHook('onRequest', async (request, reply) => void reply.header('x-request-id', request.id));
  // Order matters: onRequest hooks run in registration order, so security headers are set before
  // the SPA may answer a navigation, and the SPA answers before the access rules are enforced.
  app.register(cookie);
  app.register(securityHeaders, { config });
  app.register(rateLimit, {
    global: false,
    // Servers sharing a store count every client's calls together.
    ...(config.databaseUrl && { store: sharedRateLimitStore(db) }),
    errorResponseBuilder: (_request, context) =>
      new HttpProblem(context.statusCode, `Too many requests; try again in ${context.after}.`),
  });
  if (role !== 'agent') app.register(spa, { staticDir: config.staticDir });
  app.register(awaitStartup, { startup });
  app.register(accessControl, { ctx });
  app.register(openApi, { config });

  app.register(healthRoutes, { startup });
  // An agent answers only what servers forward to it (and its health): people reach the servers.
  if (role === 'agent') acceptForwardedOnly(app, db);
  else forwardToHosts(app, { db, instances });
  app.register(hostRoutes, { prefix: '/hosts', ctx });
  app.register(hubRoute, { hub });
  app.register(authRoutes, { prefix: '/auth', ctx });
  app.register(debugRoutes, { ctx });
  app.register(outboxRoutes, { ctx });
  app.register(adminRoutes, { prefix: '/admin', ctx });
  app.register(auditRoutes, { prefix: '/admin', ctx });
  app.register(groupRoutes, { prefix: '/groups', ctx, authz, instances: groupInstances });
  app.register(instanceRoutes, { prefix: '/instances', ctx, authz, service: instances });
  app.register(instanceConnectionRoutes, { prefix: '/instances', ctx, authz, service: instances });
  app.register(instanceClusterRoutes, { prefix: '/instances', ctx, authz, service: instances });
  app.register(instanceConfigRoutes, { prefix: '/instances', ctx, authz, service: instances });
  app.register(databaseRoutes, { prefix: '/instances', ctx, authz, service: instances });
  app.register(instanceBackupRoutes, { prefix: '/instances', ctx, authz, service: backups });
  app.register(scriptRoutes, { prefix: '/instances', ctx, authz, service: scripts });
  app.register(backupRoutes, { ctx, authz, service: backups });
  app.register(pitrRoutes, { prefix: '/instances', ctx, authz, service: pointInTime });
  app.register(logRoutes, { ctx, authz });
  app.register(statisticsRoutes, { ctx, authz });
  app.register(clientVersionRoutes, { prefix: '/client-versions', ctx, catalog: releases, builds: clientBuilds });

  // Tests, benchmarks and main reach the services of this app through it.
  return Object.assign(app, { startup, compileRouteSchemas, hostAgent, hostWatch, instances, instanceLogs: logs, backups, scripts, pointInTime, logRetention: retention, clientBuilds, metrics, statistics });
}

export type App = ReturnType<typeof buildApp>;
