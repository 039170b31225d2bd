import { Command, CommanderError } from 'commander';
import { registerAuth } from './commands/auth';
import { registerBackups } from './commands/backups';
import { registerCluster } from './commands/cluster';
import { registerConfig } from './commands/config';
import { registerDatabases } from './commands/databases';
import { registerInstances } from './commands/instances';
import { registerLogs } from './commands/logs';
import { registerPitr } from './commands/pitr';
import { registerScripts } from './commands/scripts';
import { configDirHelp } from './credentials';
import { CliError, exitCodes } from './errors';
import { cliVersion } from './version';

/**
 * The whole command tree; usage errors throw (exitOverride) so `run` decides the exit code. The help
 * names the sign-in folder of `platform`.
 */
export function buildProgram(platform: NodeJS.Platform = process.platform): Command {
  const program = new Command('warden')
    .description('Command-line client of Warden: instances, configuration, backups, point-in-time recovery, logs and scripts')
    .version(cliVersion, '-V, --version', 'print the client version')
    .option('--json', 'machine-readable JSON on stdout (nothing else is printed there)')
    .option('--config-dir <dir>', `where the sign-in is kept (default: ${configDirHelp(platform)})`)
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
Environment:
  WARDEN_URL, WARDEN_TOKEN   use this server and access token instead of the saved sign-in (CI)

Exit codes: 0 ok, 1 failure (API refusal, network, checksum), 2 usage error.

Examples:
  $ warden login --url https://warden.example.com
  $ warden instances list
  $ warden instances create --type pg --name shop --param max_connections=50
  $ warden backups download shop <backup-id>
  $ warden pitr restore shop --to 2026-11-26T10:42:00+01:00 --name shop-before
  $ warden logs --instance shop --follow`,
    );
  registerAuth(program);
  registerInstances(program);
  registerCluster(program);
  registerConfig(program);
  registerBackups(program);
  registerPitr(program);
  registerLogs(program);
  registerScripts(program);
  registerDatabases(program);
  return program;
}

/** Runs the client with `argv` (without node and script) and answers the exit code. */
export async function run(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end the parse with a CommanderError too; a group without its subcommand shows help as a usage error.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return exitCodes.ok;
      return exitCodes.usage;
    }
    if (error instanceof CliError) {
      process.stderr.write(`warden: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`warden: ${(error as Error).stack ?? String(error)}\n`);
    return exitCodes.failure;
  }
}
