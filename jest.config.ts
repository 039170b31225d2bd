/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// typebox and the TypeBox type provider ship only ES modules; let Babel turn them into CommonJS for jest.
const transformIgnorePatterns = ['/node_modules/(?!(typebox|@fastify/type-provider-typebox)/)'];
const transform = { '^.+\\.[cm]?[jt]sx?$': 'babel-jest' };

const config: Config = {
  projects: [
    {
      displayName: 'web',
      testEnvironment: 'jsdom',
      roots: ['<rootDir>/test/web'],
      setupFilesAfterEnv: ['<rootDir>/test/web/setup.ts'],
      moduleNameMapper: { '\\.css$': '<rootDir>/test/web/styleStub.ts' },
      transform,
      transformIgnorePatterns,
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
