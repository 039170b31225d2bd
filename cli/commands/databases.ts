import type { Command } from 'commander';
import type { Database, DbRole } from '../../contracts/databases';
import { contextOf } from '../context';
import { UsageError } from '../errors';
import { formatBytes, renderTable, type Column } from '../output';
import { readStdin } from '../prompt';
import { resolveInstance } from '../resolve';
import { confirmDestruction } from './shared';

const databaseColumns: Column<Database>[] = [
  { header: 'Name', value: (d) => d.name },
  { header: 'Owner', value: (d) => d.owner },
  { header: 'Size', value: (d) => formatBytes(d.sizeBytes), align: 'right' },
  { header: 'Note', value: (d) => (d.isDefault ? 'default' : d.system ? 'system' : '') },
];

const roleColumns: Column<DbRole>[] = [
  { header: 'Name', value: (r) => r.name },
  { header: 'Login', value: (r) => (r.login ? 'yes' : 'no') },
  { header: 'Member of', value: (r) => r.memberOf.join(', ') },
  { header: 'Note', value: (r) => (r.owner ? 'owner' : r.superuser ? 'superuser' : r.managed ? 'managed' : '') },
];

const path = (id: string, what: 'databases' | 'roles', name?: string) =>
  `/instances/${encodeURIComponent(id)}/${what}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;

/** `databases` and `roles` of a PostgreSQL instance (made by the control plane, audited). */
export function registerDatabases(program: Command): void {
  const databases = program.command('databases').alias('database').description('PostgreSQL databases of an instance');

  databases
    .command('list')
    .alias('ls')
    .argument('<instance>', 'name or id')
    .description('Databases with owner and size')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const items = await ctx.api().get<Database[]>(path(instance.id, 'databases'));
      ctx.out.result(items, () => renderTable(items, databaseColumns));
    });

  databases
    .command('create')
    .argument('<instance>', 'name or id')
    .argument('<name>', 'lower-case letters, digits and _')
    .option('--owner <role>', 'the owner role (default: the instance owner role, app)')
    .description('Create a database')
    .addHelpText('after', '\nExample:\n  $ warden databases create shop reporting --owner analyst')
    .action(async (ref: string, name: string, options: { owner?: string }, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const created = await ctx.api().post<Database>(path(instance.id, 'databases'), { name, ...(options.owner && { owner: options.owner }) });
      ctx.out.result(created, () => `Created database ${created.name} (owner ${created.owner}) on ${instance.name}.`);
    });

  databases
    .command('delete')
    .argument('<instance>', 'name or id')
    .argument('<name>', 'the database')
    .option('-y, --yes', 'do not ask to type the name')
    .description('Drop a database')
    .action(async (ref: string, name: string, options: { yes?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      await confirmDestruction(ctx, `database ${name} of ${instance.name}`, name, options.yes);
      await ctx.api().delete(path(instance.id, 'databases', name));
      ctx.out.result({ name, deleted: true }, () => `Dropped database ${name} of ${instance.name}.`);
    });

  const roles = program.command('roles').alias('role').description('PostgreSQL roles of an instance');

  roles
    .command('list')
    .alias('ls')
    .argument('<instance>', 'name or id')
    .description('Roles with login and memberships')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const items = await ctx.api().get<DbRole[]>(path(instance.id, 'roles'));
      ctx.out.result(items, () => renderTable(items, roleColumns));
    });

  roles
    .command('create')
    .argument('<instance>', 'name or id')
    .argument('<name>', 'lower-case letters, digits and _')
    .option('--login', 'the role may sign in (give it a password with --password-stdin)')
    .option('--password-stdin', 'read its password from stdin')
    .option('--member-of <roles>', 'comma-separated roles it joins')
    .description('Create a role (never a superuser, never CREATEROLE)')
    .addHelpText('after', "\nExample:\n  $ printf '%s' \"$PW\" | warden roles create shop analyst --login --password-stdin --member-of app")
    .action(async (ref: string, name: string, options: { login?: boolean; passwordStdin?: boolean; memberOf?: string }, command: Command) => {
      const ctx = contextOf(command);
      if (options.passwordStdin && !options.login) throw new UsageError('A password only makes sense with --login.');
      const instance = await resolveInstance(ctx.api(), ref);
      const password = options.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : undefined;
      const created = await ctx.api().post<DbRole>(path(instance.id, 'roles'), {
        name,
        login: options.login ?? false,
        ...(password !== undefined && { password }),
        ...(options.memberOf && { memberOf: options.memberOf.split(',').map((r) => r.trim()).filter(Boolean) }),
      });
      ctx.out.result(created, () => `Created role ${created.name} on ${instance.name}.`);
    });

  roles
    .command('delete')
    .argument('<instance>', 'name or id')
    .argument('<name>', 'the role')
    .option('-y, --yes', 'do not ask to type the name')
    .description('Drop a role made through Warden')
    .action(async (ref: string, name: string, options: { yes?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      await confirmDestruction(ctx, `role ${name} of ${instance.name}`, name, options.yes);
      await ctx.api().delete(path(instance.id, 'roles', name));
      ctx.out.result({ name, deleted: true }, () => `Dropped role ${name} of ${instance.name}.`);
    });
}
