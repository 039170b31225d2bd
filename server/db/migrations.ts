import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { installInstanceCount } from './instanceCount';
import { installLogSearch } from './logSearch';
import { isPostgres } from './postgresStore';

// Migrations live in code (DESIGN §3) and only use Kysely's schema builder, so they run unchanged
// on the PostgreSQL store later. Never edit a shipped migration; add the next one.
const migrations: Record<string, Migration> = {
  '0001_identity': {
    async up(db) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'regular')`))
        .addColumn('email_confirmed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('two_factor_enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('two_factor_secret', 'text')
        .addColumn('access_failed_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lockout_end', 'text')
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('security_stamp', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_login_at', 'text')
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('cookie', 'access', 'refresh')`))
        .addColumn('persistent', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text')
        .addColumn('ip', 'text')
        .execute();
      await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();
      await db.schema.createIndex('sessions_expires_at').on('sessions').column('expires_at').execute();

      await db.schema
        .createTable('audit_entries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('at', 'text', (c) => c.notNull())
        // Audit outlives the user it names.
        .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target', 'text')
        .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('success', 'failure')`))
        .addColumn('detail', 'text')
        .addColumn('ip', 'text')
        .execute();
      await db.schema.createIndex('audit_entries_at').on('audit_entries').column('at').execute();
    },
  },
  '0002_identity_tokens': {
    async up(db) {
      // Bearer sessions of one sign-in share a family; a used refresh token is kept (consumed) until it
      // expires, so presenting it again is recognised as theft and ends the whole family.
      await db.schema.alterTable('sessions').addColumn('family_id', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('consumed_at', 'text').execute();
      // Bearer sessions from before families existed each make a family of their own.
      await db
        .updateTable('sessions')
        .set((eb) => ({ family_id: eb.ref('id') }))
        .where('kind', 'in', ['access', 'refresh'])
        .execute();
      await db.schema.createIndex('sessions_family_id').on('sessions').column('family_id').execute();

      // Codes e-mailed to confirm an address, reset a password or change the address; stored hashed.
      await db.schema
        .createTable('tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('confirm', 'reset', 'change-email')`))
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('stamp', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema.createIndex('tokens_user_id').on('tokens').column('user_id').execute();

      await db.schema
        .createTable('recovery_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema.createIndex('recovery_codes_user_id').on('recovery_codes').column('user_id').execute();

      await db.schema
        .createTable('outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('to', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('sent', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .execute();
      await db.schema.createIndex('outbox_at').on('outbox').column('at').execute();
    },
  },
  '0003_groups': {
    async up(db) {
      await db.schema
        .createTable('groups')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull().unique())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('group_members')
        .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('added_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'user_id'])
        .execute();
      // The primary key serves lookups by group; scoping a user's view needs the other direction.
      await db.schema.createIndex('group_members_user_id').on('group_members').column('user_id').execute();
    },
  },
  '0004_instances': {
    async up(db) {
      await db.schema
        .createTable('instances')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('pg', 'etcd')`))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('desired_state', 'text', (c) => c.notNull())
        .addColumn('status_reason', 'text')
        .addColumn('health_level', 'text', (c) => c.notNull().defaultTo('good'))
        .addColumn('health_checks', 'text', (c) => c.notNull().defaultTo('[]'))
        // An instance outlives its group: deleting a group moves its instances out first.
        .addColumn('group_id', 'text', (c) => c.references('groups.id').onDelete('set null'))
        .addColumn('engine_version', 'text')
        .addColumn('port', 'integer', (c) => c.notNull().unique())
        .addColumn('peer_port', 'integer', (c) => c.unique())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('last_backup_at', 'text')
        .addColumn('operation_kind', 'text')
        .addColumn('operation_started_at', 'text')
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('instances_group_id').on('instances').column('group_id').execute();
      await db.schema.createIndex('instances_created_at').on('instances').column('created_at').execute();
      // No index on status: with four values and no statistics, SQLite would read every running instance
      // through it and sort them all for one page, instead of walking the sort order (bench/instances.ts).

      await db.schema
        .createTable('config_revisions')
        .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
        .addColumn('revision', 'integer', (c) => c.notNull())
        .addColumn('author', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('changes', 'text', (c) => c.notNull())
        .addColumn('parameters', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('config_revisions_pk', ['instance_id', 'revision'])
        .execute();

      // Entries outlive a deleted instance only until it is deleted (no foreign key: the control
      // plane's own entries have no instance, and ingestion must never wait on one).
      await db.schema
        .createTable('logs')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('timestamp', 'text', (c) => c.notNull())
        .addColumn('level', 'text', (c) => c.notNull())
        .addColumn('instance_id', 'text')
        .addColumn('handler', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('properties', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      // Queries walk newest first (by id) within an instance, optionally one level or handler.
      await db.schema.createIndex('logs_instance_id').on('logs').columns(['instance_id', 'id']).execute();
      await db.schema.createIndex('logs_instance_level').on('logs').columns(['instance_id', 'level', 'id']).execute();
      await db.schema.createIndex('logs_instance_handler').on('logs').columns(['instance_id', 'handler', 'id']).execute();
      await db.schema.createIndex('logs_timestamp').on('logs').column('timestamp').execute();

      await db.schema
        .createTable('log_offsets')
        .addColumn('file', 'text', (c) => c.primaryKey())
        .addColumn('instance_id', 'text', (c) => c.notNull())
        .addColumn('offset', 'integer', (c) => c.notNull())
        .execute();
    },
  },

  '0005_backups': {
    async up(db) {
      // No foreign key to instances: backups outlive a deleted instance until someone deletes them,
      // so they keep the instance's name and engine as they were.
      await db.schema
        .createTable('backups')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('instance_id', 'text', (c) => c.notNull())
        .addColumn('instance_name', 'text', (c) => c.notNull())
        .addColumn('engine', 'text', (c) => c.notNull().check(sql`engine in ('pg', 'etcd')`))
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('database', 'file')`))
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('size_bytes', 'integer')
        .addColumn('sha256', 'text')
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('engine_version', 'text')
        .addColumn('error', 'text')
        .addColumn('storage_key', 'text')
        .addColumn('contents', 'text')
        .addColumn('verification', 'text')
        .addColumn('created_by', 'text')
        .execute();
      await db.schema.createIndex('backups_instance').on('backups').columns(['instance_id', 'kind', 'started_at']).execute();
      await db.schema.createIndex('backups_started_at').on('backups').column('started_at').execute();

      await db.schema
        .createTable('backup_schedules')
        .addColumn('instance_id', 'text', (c) => c.primaryKey().references('instances.id').onDelete('cascade'))
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cron', 'text', (c) => c.notNull())
        .addColumn('time_zone', 'text', (c) => c.notNull())
        .addColumn('keep_last', 'integer')
        .addColumn('keep_days', 'integer')
        /** The scheduled time last run (not when it ran): missed runs are found from it. */
        .addColumn('last_run_at', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  },

  '0006_group_quotas': {
    async up(db) {
      // Null is unlimited: existing groups keep working as before.
      await db.schema.alterTable('groups').addColumn('max_instances', 'integer').execute();
      await db.schema.alterTable('groups').addColumn('max_backup_bytes', 'integer').execute();
    },
  },

  '0007_auth_hardening': {
    async up(db) {
      // The last authenticator step a code was accepted for: a code is good once, not for its whole window.
      await db.schema.alterTable('users').addColumn('two_factor_last_step', 'integer').execute();

      // Failed sign-ins and lockouts per account and client address, so one client cannot lock an account out everywhere.
      await db.schema
        .createTable('login_failures')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lockout_end', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('login_failures_pk', ['user_id', 'address'])
        .execute();
    },
  },

  '0008_log_search': {
    async up(db) {
      // The global Logs screen sorts by time within any scope. Every index costs ingestion and about
      // 50 bytes an entry, so only these: time alone (logs_timestamp) serves the newest page, a range
      // and one level everywhere (levels are dense enough to filter while walking it); an instance,
      // with or without a level, walks its own. The id-ordered level and handler indexes give way.
      await db.schema.dropIndex('logs_instance_level').execute();
      await db.schema.dropIndex('logs_instance_handler').execute();
      await db.schema.createIndex('logs_instance_time').on('logs').columns(['instance_id', 'timestamp']).execute();
      await db.schema.createIndex('logs_instance_level_time').on('logs').columns(['instance_id', 'level', 'timestamp']).execute();
      // Running totals per instance ('' for the control plane), so size and the byte cap need no scan.
      await db.schema
        .createTable('log_totals')
        .addColumn('scope', 'text', (c) => c.primaryKey())
        .addColumn('entries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('bytes', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await installLogSearch(db);
    },
  },

  '0009_scripts': {
    async up(db) {
      // One saved script per instance; it goes with the instance.
      await db.schema
        .createTable('scripts')
        .addColumn('instance_id', 'text', (c) => c.primaryKey().references('instances.id').onDelete('cascade'))
        .addColumn('script', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('updated_by', 'text')
        .execute();
      // Runs with their results as JSON text (parsed by the server, so the store stays portable).
      await db.schema
        .createTable('script_runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('phase', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('copied_from', 'text')
        .addColumn('backup_id', 'text')
        .addColumn('script', 'text', (c) => c.notNull())
        .addColumn('continue_on_error', 'integer', (c) => c.notNull())
        .addColumn('timeout_ms', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('ok', 'integer')
        .addColumn('created_by', 'text')
        .addColumn('statements', 'integer', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('results', 'text')
        .addColumn('changes', 'text')
        .execute();
      await db.schema.createIndex('script_runs_instance_time').on('script_runs').columns(['instance_id', 'started_at']).execute();
    },
  },

  '0010_metrics': {
    async up(db) {
      // A small integer per instance keeps the samples' key short; both go with the instance. The
      // data folder's size as last measured sits here too: the instances list shows and sorts by it.
      await db.schema
        .createTable('metric_series')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('instance_id', 'text', (c) => c.notNull().unique().references('instances.id').onDelete('cascade'))
        .addColumn('size_bytes', 'bigint')
        .execute();
      // One row per instance, resolution and time: the values as a JSON array in the order of
      // contracts/statistics metricDefinitions (append-only), about 150 bytes a row.
      await db.schema
        .createTable('metric_samples')
        .addColumn('series_id', 'integer', (c) => c.notNull().references('metric_series.id').onDelete('cascade'))
        .addColumn('resolution', 'integer', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('metric_samples_pk', ['series_id', 'resolution', 'at'])
        .execute();
    },
  },

  '0011_backup_pins': {
    async up(db) {
      // Existing backups are unpinned, and existing policies trim scheduled backups only.
      await db.schema.alterTable('backups').addColumn('pinned', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('backup_schedules').addColumn('include_manual', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
  },

  '0012_instance_list_indexes': {
    async up(db) {
      // The list filtered by group (and status) walks these in its default sort, name, and stops at
      // the page's end, instead of sorting every instance of the group (bench/instances.ts). The first
      // also serves every lookup by group alone, so it replaces the index on group_id.
      await db.schema.createIndex('instances_group_name').on('instances').columns(['group_id', 'name']).execute();
      await db.schema.createIndex('instances_group_status_name').on('instances').columns(['group_id', 'status', 'name']).execute();
      await db.schema.dropIndex('instances_group_id').execute();
    },
  },

  '0013_instance_list_search_index': {
    async up(db) {
      // The filtered list's count (group, status and text, which matches name or description) then
      // reads this index alone instead of every matching row of the table: about half the time
      // (bench/instances.ts). It serves all the previous index served, so it replaces it. On a
      // PostgreSQL store a B-tree entry holds at most about 2.7 kB, less than a 1,000-character
      // description written in 3- or 4-byte characters: there, search needs a trigram index instead.
      // A PostgreSQL store keeps the index it had (its form of this migration, side by side).
      if (isPostgres(db)) return;
      await db.schema
        .createIndex('instances_group_status_name_description')
        .on('instances')
        .columns(['group_id', 'status', 'name', 'description'])
        .execute();
      await db.schema.dropIndex('instances_group_status_name').execute();
    },
  },

  '0014_group_process_limits': {
    async up(db) {
      // Null is the server's default: existing groups' instances keep the limits they run with.
      // Memory is bigint: up to a tebibyte, beyond a PostgreSQL integer.
      await db.schema.alterTable('groups').addColumn('max_processes', 'integer').execute();
      await db.schema.alterTable('groups').addColumn('max_open_files', 'integer').execute();
      await db.schema.alterTable('groups').addColumn('max_memory_bytes', 'bigint').execute();
    },
  },

  '0015_point_in_time_recovery': {
    async up(db) {
      // Named points of an instance's WAL ("before the migration"), created with pg_create_restore_point.
      await db.schema
        .createTable('restore_points')
        .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('lsn', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addPrimaryKeyConstraint('restore_points_pk', ['instance_id', 'name'])
        .execute();
      // What an instance made by a restore to a point came from, and how long its recovery took.
      await db.schema
        .createTable('point_restores')
        .addColumn('instance_id', 'text', (c) => c.primaryKey().references('instances.id').onDelete('cascade'))
        .addColumn('source_id', 'text', (c) => c.notNull())
        .addColumn('source_name', 'text', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('backup_id', 'text', (c) => c.notNull())
        .addColumn('last_replayed_at', 'text')
        .addColumn('timeline', 'integer', (c) => c.notNull())
        .addColumn('recovery_ms', 'integer', (c) => c.notNull())
        .addColumn('wal_bytes', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('point_restores_source').on('point_restores').columns(['source_id', 'created_at']).execute();
      // Restore drills and verifications of each instance's WAL repository.
      await db.schema
        .createTable('recovery_checks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('ok', 'integer', (c) => c.notNull())
        .addColumn('target_time', 'text')
        .addColumn('backup_id', 'text')
        .addColumn('recovery_ms', 'integer')
        .addColumn('wal_bytes', 'bigint')
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('recovery_checks_instance').on('recovery_checks').columns(['instance_id', 'kind', 'at']).execute();
      // Existing schedules keep taking dumps.
      await db.schema.alterTable('backup_schedules').addColumn('method', 'text', (c) => c.notNull().defaultTo('dump')).execute();
    },
  },
  '0016_instance_members': {
    async up(db) {
      // The ports of the members after the first (an etcd cluster of 3 or 5); existing instances stay single.
      await db.schema.alterTable('instances').addColumn('member_ports', 'text').execute();
    },
  },
  '0017_pg_clusters': {
    async up(db) {
      // A PostgreSQL cluster's consensus store, addresses and timing (JSON); null for every other instance.
      await db.schema.alterTable('instances').addColumn('cluster', 'text').execute();
    },
  },
  '0018_hub_payloads': {
    async up(db) {
      // Events too large for a notification, read by every server of a shared store by id (server/hub/postgresBus.ts).
      await db.schema
        .createTable('hub_payloads')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('hub_payloads_created_at').on('hub_payloads').column('created_at').execute();
    },
  },
  '0019_shared_server_state': {
    async up(db) {
      // What servers sharing a store must agree on: keys (signing download links) and request counts.
      await db.schema
        .createTable('shared_secrets')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      // Calls counted per rate-limit key in the window that started at window_start (ms since the epoch).
      await db.schema
        .createTable('rate_limits')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('hits', 'integer', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_limits_window_start').on('rate_limits').column('window_start').execute();
    },
  },
  '0020_instance_count': {
    async up(db) {
      // The admins' unfiltered list reads its total rather than counting every instance (instanceCount.ts).
      await installInstanceCount(db);
    },
  },
  '0021_hosts': {
    async up(db) {
      // The machines that run instances, each kept alive by its agent's heartbeat (server/hosts).
      await db.schema
        .createTable('hosts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('cores', 'integer', (c) => c.notNull())
        .addColumn('memory_bytes', 'integer', (c) => c.notNull())
        .addColumn('disk_free_bytes', 'integer', (c) => c.notNull())
        .addColumn('ports_from', 'integer', (c) => c.notNull())
        .addColumn('ports_to', 'integer', (c) => c.notNull())
        .addColumn('agent_version', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('heartbeat_at', 'text', (c) => c.notNull())
        .addColumn('heartbeat_ms', 'integer', (c) => c.notNull())
        .addColumn('api_url', 'text')
        .addColumn('lost_at', 'text')
        .addColumn('draining', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      // Existing instances belong to the first supervising process that starts on the store.
      await db.schema.alterTable('instances').addColumn('host_id', 'text').execute();
      await db.schema.createIndex('instances_host_id').on('instances').column('host_id').execute();
      // Operations waiting for (or taken by) a host's agent, oldest first.
      await db.schema
        .createTable('host_operations')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('host_id', 'text', (c) => c.notNull())
        .addColumn('instance_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('input', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('claimed_by', 'text')
        .addColumn('claimed_at', 'text')
        .execute();
      await db.schema.createIndex('host_operations_host_id').on('host_operations').columns(['host_id', 'id']).execute();
    },
  },
};

/** Kysely's migrator over this build's migrations. */
export const migratorOf = <DB>(db: Kysely<DB>) => new Migrator({ db, provider: { getMigrations: async () => migrations } });

/** The migrations this build knows, in the order they run. */
export const migrationNames = Object.keys(migrations).sort();

/**
 * Whether the store already holds exactly the migrations this build knows: one read of Kysely's
 * own bookkeeping table, where the migrator would create its tables, take its lock and compare
 * every migration. A store without the table (a new one) is not up to date.
 */
async function isUpToDate<DB>(db: Kysely<DB>): Promise<boolean> {
  try {
    const { rows } = await sql<{ applied: number | string; latest: string | null }>`
      select count(*) as applied, max(name) as latest from kysely_migration`.execute(db);
    return Number(rows[0].applied) === migrationNames.length && rows[0].latest === migrationNames.at(-1);
  } catch {
    return false;
  }
}

/**
 * For an agent, which never changes the schema (its store role may not): throws unless a server has
 * brought the store to this build's version.
 */
export async function requireMigrated<DB>(db: Kysely<DB>): Promise<void> {
  if (!(await isUpToDate(db))) {
    throw new Error('The store is not at this version of Warden: start a server (WARDEN_ROLE=server or all) of this version on it first, which migrates it.');
  }
}

/**
 * Brings the store's schema up to date; throws when a migration fails. A store already at this
 * build's version is left alone, so a restart of an up-to-date server costs one query.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<void> {
  if (await isUpToDate(db)) return;
  const { error, results } = await migratorOf(db).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Store migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
