/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// typebox and the TypeBox type provider ship only ES modules; let Babel turn them into CommonJS for jest.
const transformIgnorePatterns = ['/node_modules/(?!(typebox|@fastify/type-provider-typebox)/)'];
const transform = { '^.+\\.[cm]?[jt]sx?$': 'babel-jest' };
// msw 2 pulls in a few ES-module-only packages too.
const webTransformIgnorePatterns = [
  '/node_modules/(?!(typebox|@fastify/type-provider-typebox|rettime|until-async|@open-draft/deferred-promise)/)',
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
  ],
};

export default config;
