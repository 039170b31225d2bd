/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// typebox and the TypeBox type provider ship only ES modules; let Babel turn them into CommonJS for jest.
const transformIgnorePatterns = ['/node_modules/(?!(typebox|@fastify/type-provider-typebox)/)'];
const transform = { '^.+\\.[cm]?[jt]sx?$': 'babel-jest' };
// msw 2 pulls in a few ES-module-only packages too.
const webTransformIgnorePatterns = [
  '/node_modules/(?!(typebox|@fastify/type-provider-typebox|rettime|until-async|@open-draft/deferred-promise)/)',
];

/**
 * The server suites that run on the PostgreSQL store as well (paths under test/server without
 * .test.ts): the suites of the HTTP API over inert engines whose answers come from the store. Suites
 * of the hub's and HTTP's own mechanics (hub, spa, problems, debug, platform) and those that mostly
 * drive PostgreSQL and etcd processes run on SQLite alone: their store calls are these suites' calls.
 */
const postgresSuites = [
  ...['access', 'admin', 'audit', 'authHardening', 'authz', 'groups', 'hosts', 'hubScoping', 'inputLimits', 'instanceCount', 'login', 'logs', 'logsHub', 'main', 'rbac', 'statistics'],
  ...['identityMail', 'identityPassword', 'identityRegistration', 'identitySessions', 'identityTwoFactor'],
  ...['backups/backupPins', 'backups/backupScoping', 'backups/downloads', 'metrics/sparklines', 'metrics/store', 'releases/clientVersions'],
  ...['instances/groupLimits', 'instances/instancesApi', 'instances/quotas', 'instances/scopingLeaks', 'instances/scratchNames'],
];

const config: Config = {
  // Screens wait up to 10 s for what they render (test/web/setup.ts); a test may wait several times.
  testTimeout: 30_000,
  projects: [
    {
      displayName: 'web',
      testEnvironment: '<rootDir>/test/web/jsdomEnvironment.ts',
      roots: ['<rootDir>/test/web'],
      setupFilesAfterEnv: ['<rootDir>/test/web/setup.ts'],
      moduleNameMapper: { '\\.css$': '<rootDir>/test/web/styleStub.ts' },
      transform,
      transformIgnorePatterns: webTransformIgnorePatterns,
    },
    {
      displayName: 'server',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/server'],
      transform,
      transformIgnorePatterns,
    },
    // The same suites on a PostgreSQL store (test/server/testStore.ts): every suite whose store work
    // is its subject. Suites that mostly drive engines run on SQLite alone; the store is the same code.
    {
      displayName: 'server-postgres',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/server'],
      testMatch: postgresSuites.map((suite) => `<rootDir>/test/server/${suite}.test.ts`),
      globals: { wardenStore: 'postgres' },
      globalSetup: '<rootDir>/test/server/postgresPassSetup.ts',
      globalTeardown: '<rootDir>/test/server/postgresPassTeardown.ts',
      transform,
      transformIgnorePatterns,
    },
  ],
};

export default config;
