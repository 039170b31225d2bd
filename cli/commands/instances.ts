import { Option, type Command } from 'commander';
import { clusterPresetNames, type ClusterPresetName } from '../../contracts/clusters';
import type { ConnectionInfo, CreateInstanceRequest, DeleteInstanceResponse, Instance } from '../../contracts/instances';
import { instanceStatuses, instanceTypes, type InstanceStatus } from '../../contracts/instanceValues';
import type { PageOf } from '../../contracts/page';
import type { ApiClient } from '../api';
import { contextOf, type Ctx } from '../context';
import { formatBytes, renderFields, renderTable, type Column } from '../output';
import { resolveGroupId, resolveInstance } from '../resolve';
import { waitForInstance } from '../wait';
import { collectPairs, confirmDestruction, positiveInteger, waitHelp, type WaitOptions } from './shared';

export const instanceColumns: Column<Instance>[] = [
  { header: 'Name', value: (i) => i.name },
  { header: 'Type', value: (i) => i.type },
  { header: 'Status', value: (i) => (i.operation ? `${i.status} (${i.operation.kind}…)` : i.status) },
  { header: 'Health', value: (i) => i.health.level },
  { header: 'Group', value: (i) => i.groupName },
  { header: 'Port', value: (i) => i.port, align: 'right' },
  { header: 'Size', value: (i) => formatBytes(i.sizeBytes), align: 'right' },
  { header: 'Id', value: (i) => i.id },
];

function instanceFields(i: Instance, connection: ConnectionInfo | null): string {
  return renderFields([
    ['Name', i.name],
    ['Id', i.id],
    ['Type', i.type],
    ['Engine', i.engineVersion],
    ['Status', i.status],
    ['Reason', i.statusReason],
    ['Desired', i.desiredState],
    ['Operation', i.operation ? `${i.operation.kind} since ${i.operation.startedAt}` : null],
    ['Health', `${i.health.level}${i.health.checks.filter((c) => c.level !== 'good').map((c) => `; ${c.name}: ${c.message}`).join('')}`],
    ['Group', i.groupName],
    ['Address', `${i.host}:${i.port}`],
    ['Connect', connection?.uri],
    ['User', connection?.user],
    // It asks for the password (revealed in the console), so none is printed here.
    ['Command', connection?.command],
    ['Read-write', connection?.readWrite],
    ['Read-only', connection?.readOnly],
    ['Multi-host', connection?.multiHostUri],
    ['Size', formatBytes(i.sizeBytes)],
    ['Last backup', i.lastBackupAt],
    ['Created', `${i.createdAt}${i.createdBy ? ` by ${i.createdBy}` : ''}`],
    ['Description', i.description],
  ]);
}

/** Every page of a list (the API pages at 200 at most). */
async function allInstances(api: ApiClient, query: Record<string, string | undefined>): Promise<Instance[]> {
  const items: Instance[] = [];
  for (let page = 1; ; page += 1) {
    const answer = await api.get<PageOf<Instance>>('/instances', { ...query, page, pageSize: 200 });
    items.push(...answer.items);
    if (answer.items.length === 0 || items.length >= answer.total) return items;
  }
}

/** What the operation should leave the instance as. */
const outcome: Record<string, InstanceStatus> = { start: 'running', stop: 'stopped', restart: 'running', 'reload-configuration': 'running' };

/** Prints the accepted operation, or waits for it and prints where the instance ended up. */
export async function finishOperation(ctx: Ctx, accepted: Instance, expected: InstanceStatus, what: string, options: WaitOptions): Promise<void> {
  if (!options.wait) {
    ctx.out.result(accepted, () => `${what}: accepted (${accepted.name}, ${accepted.id}).`);
    return;
  }
  if (!ctx.out.json) ctx.out.note(`${what}: waiting…`);
  const done = await waitForInstance(ctx.api(), accepted.id, expected, what, options.timeout);
  ctx.out.result(done, () => `${what}: done, ${done.name} is ${done.status}.`);
}

export const addWaitOptions = (command: Command) =>
  command.option('--no-wait', waitHelp.noWait).option('--timeout <seconds>', waitHelp.timeout, positiveInteger, 600);

export function registerInstances(program: Command): void {
  const instances = program
    .command('instances')
    .alias('instance')
    .description('List, create, start, stop, restart, reload, clone and delete instances (named by name or id)');

  instances
    .command('list')
    .alias('ls')
    .description('Instances you can see')
    .addOption(new Option('--type <type>', 'only this engine').choices(instanceTypes))
    .addOption(new Option('--status <status>', 'only this status').choices(instanceStatuses))
    .option('--search <words>', 'name or description contains')
    .option('--group <group>', 'only this group (name, id or none)')
    .addHelpText('after', '\nExamples:\n  $ warden instances list --type pg\n  $ warden instances list --json | jq -r \'.[].name\'')
    .action(async (options: { type?: string; status?: string; search?: string; group?: string }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const groupId = options.group === undefined ? undefined : ((await resolveGroupId(api, options.group)) ?? 'none');
      const items = await allInstances(api, { type: options.type, status: options.status, search: options.search, groupId, sort: 'name' });
      ctx.out.result(items, () => (items.length ? renderTable(items, instanceColumns) : 'No instances.'));
    });

  instances
    .command('show')
    .argument('<instance>', 'name or id')
    .description('One instance: status, health, address, connection string, user and a command that connects')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const connection = await ctx
        .api()
        .get<ConnectionInfo>(`/instances/${instance.id}/connection`)
        .catch(() => null);
      ctx.out.result({ ...instance, connection }, () => instanceFields(instance, connection));
    });

  addWaitOptions(
    instances
      .command('create')
      .description('Create an instance; it initializes and starts (waits for it unless --no-wait)')
      .requiredOption('--name <name>', '3–40 lower-case letters, digits and -, starting with a letter')
      .addOption(new Option('--type <type>', 'the engine').choices(instanceTypes).makeOptionMandatory())
      .option('--group <group>', 'the group (name or id); admins may leave it out')
      .option('--description <text>', 'what it is for')
      .addOption(new Option('--members <count>', 'members: 1, 3 or 5 for an etcd cluster, 2 to 5 for a PostgreSQL cluster').choices(['1', '2', '3', '4', '5']))
      .option('--dcs <instance>', 'a PostgreSQL cluster: the etcd instance of its group that keeps its leader lock (name or id); without it, a 3-member one named <name>-dcs is made with the cluster')
      .option('--sync', 'a PostgreSQL cluster: synchronous replication (no acknowledged commit lost in a failover; slower writes)')
      .addOption(new Option('--failover-timing <preset>', 'a PostgreSQL cluster: how fast a lost leader is replaced').choices(clusterPresetNames))
      .option('--param <name=value>', 'initial configuration (repeatable)', collectPairs),
  )
    .addHelpText('after', '\nExamples:\n  $ warden instances create --type etcd --name settings\n  $ warden instances create --type etcd --name locks --members 3\n  $ warden instances create --type pg --name orders --members 3 --dcs locks --sync\n  $ warden instances create --type pg --name shop --group team-a --param max_connections=50')
    .action(
      async (
        options: {
          name: string;
          type: Instance['type'];
          group?: string;
          description?: string;
          members?: string;
          dcs?: string;
          sync?: boolean;
          failoverTiming?: ClusterPresetName;
          param?: Record<string, string>;
        } & WaitOptions,
        command: Command,
      ) => {
        const ctx = contextOf(command);
        const api = ctx.api();
        const body: CreateInstanceRequest = { name: options.name, type: options.type };
        if (options.group !== undefined) body.groupId = await resolveGroupId(api, options.group);
        if (options.description !== undefined) body.description = options.description;
        if (options.members !== undefined) body.members = Number(options.members);
        if (options.dcs !== undefined) body.dcsInstanceId = (await resolveInstance(api, options.dcs)).id;
        if (options.sync) body.synchronous = true;
        if (options.failoverTiming !== undefined) body.failoverPreset = options.failoverTiming;
        if (options.param) body.parameters = options.param;
        const accepted = await api.post<Instance>('/instances', body);
        await finishOperation(ctx, accepted, 'running', `Creating ${accepted.name}`, options);
      },
    );

  for (const [name, path, verb] of [
    ['start', 'start', 'Start'],
    ['stop', 'stop', 'Stop'],
    ['restart', 'restart', 'Restart'],
    ['reload', 'reload-configuration', 'Reload the configuration of'],
  ] as const) {
    addWaitOptions(instances.command(name).argument('<instance>', 'name or id').description(`${verb} an instance`)).action(
      async (ref: string, options: WaitOptions, command: Command) => {
        const ctx = contextOf(command);
        const instance = await resolveInstance(ctx.api(), ref);
        const accepted = await ctx.api().post<Instance>(`/instances/${instance.id}/${path}`);
        await finishOperation(ctx, accepted, outcome[path], `${verb} ${instance.name}`, options);
      },
    );
  }

  addWaitOptions(
    instances
      .command('clone')
      .argument('<instance>', 'the source (name or id)')
      .description('A new instance from a consistent copy of this one, or from one of its database backups')
      .requiredOption('--name <name>', 'the new instance')
      .option('--backup <backupId>', 'restore this database backup instead of copying the live data')
      .option('--description <text>', 'what it is for')
      .option('--members <n>', 'a PostgreSQL copy as a cluster of 2–5 members on Patroni (how a single server becomes one)', positiveInteger)
      .option('--dcs <instance>', "a cluster's consensus store (an etcd instance of its group); the source's, or a new 3-member one, by default"),
  )
    .addHelpText('after', '\nExamples:\n  $ warden instances clone shop --name shop-copy\n  $ warden instances clone shop --name shop-ha --members 3')
    .action(async (ref: string, options: { name: string; backup?: string; description?: string; members?: number; dcs?: string } & WaitOptions, command: Command) => {
      const ctx = contextOf(command);
      const source = await resolveInstance(ctx.api(), ref);
      const accepted = await ctx.api().post<Instance>(`/instances/${source.id}/clone`, {
        name: options.name,
        ...(options.backup && { backupId: options.backup }),
        ...(options.description !== undefined && { description: options.description }),
        ...(options.members !== undefined && { members: options.members }),
        ...(options.dcs !== undefined && { dcsInstanceId: (await resolveInstance(ctx.api(), options.dcs)).id }),
      });
      await finishOperation(ctx, accepted, 'running', `Cloning ${source.name} into ${accepted.name}`, options);
    });

  instances
    .command('delete')
    .argument('<instance>', 'name or id')
    .description("Delete an instance and its data folder (its backups are kept); a running one needs --force")
    .option('--force', 'stop it first if it runs')
    .option('-y, --yes', 'do not ask to type the name')
    .action(async (ref: string, options: { force?: boolean; yes?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      await confirmDestruction(ctx, `instance ${instance.name}`, instance.name, options.yes);
      const answer = await ctx.api().delete<DeleteInstanceResponse>(`/instances/${instance.id}`, { force: options.force || undefined });
      ctx.out.result(answer, () => `Deleted ${instance.name}. ${answer.backups}`);
    });
}
