import type { Command } from 'commander';
import { ApiClient } from './api';
import { defaultConfigDir } from './credentials';
import { createOutput, type Output } from './output';

/** The options every command takes (declared on the program, accepted before or after the subcommand). */
export interface GlobalOptions {
  json?: boolean;
  configDir?: string;
}

/** What a command's action works with. */
export interface Ctx {
  out: Output;
  configDir: string;
  /** The API as the signed-in user; throws "Not signed in" when there is no sign-in. */
  api(): ApiClient;
}

export function contextOf(command: Command): Ctx {
  const options = command.optsWithGlobals<GlobalOptions>();
  const configDir = options.configDir ?? defaultConfigDir();
  let client: ApiClient | undefined;
  return {
    out: createOutput(options.json ?? false),
    configDir,
    api: () => (client ??= ApiClient.open(configDir)),
  };
}
