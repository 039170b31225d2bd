import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import WardenJsdomEnvironment from '../jsdomEnvironment';

/**
 * The console's jsdom in a browser set to Europe/Berlin, so a moment typed in local time differs
 * from UTC (the test machine's zone may be UTC itself). The worker's zone is put back afterwards,
 * for the next test file it runs.
 */
export default class BerlinEnvironment extends WardenJsdomEnvironment {
  private readonly zoneBefore = process.env.TZ;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    process.env.TZ = 'Europe/Berlin';
  }

  override async teardown() {
    if (this.zoneBefore === undefined) delete process.env.TZ;
    else process.env.TZ = this.zoneBefore;
    await super.teardown();
  }
}
