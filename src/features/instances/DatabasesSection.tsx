import { Badge, Button, HStack, Stack } from '@chakra-ui/react';
import { useState } from 'react';
import { formatBytes } from '../../../contracts/backupValues';
import type { Database, DbRole } from '../../../contracts/databases';
import type { Instance } from '../../../contracts/instances';
import { useAppDispatch } from '../../app/hooks';
import { DataTable } from '../../components/DataTable';
import { FormDialog } from '../../components/FormDialog';
import { EmptyState } from '../../components/ListStates';
import { Section } from '../../components/Section';
import { CreateDatabaseForm, CreateRoleForm, EditRoleForm, usableRoles } from './DatabaseForms';
import { useInstanceDatabasesQuery, useInstanceRolesQuery } from './databasesApi';
import { databaseDropRequested, roleDropRequested } from './databasesSaga';

type InstanceRef = Pick<Instance, 'id' | 'name' | 'status'>;

/**
 * A PostgreSQL instance's databases and roles (DESIGN §10, §11), read from and changed in the
 * running server by Warden as superuser. Drops are confirmed first (databasesSaga).
 */
export function DatabasesSection({ instance }: { instance: InstanceRef }) {
  const running = instance.status === 'running';
  const dispatch = useAppDispatch();
  const databases = useInstanceDatabasesQuery(instance.id, { skip: !running });
  const roles = useInstanceRolesQuery(instance.id, { skip: !running });
  const [dialog, setDialog] = useState<null | 'database' | 'role' | DbRole>(null);
  const usable = usableRoles(roles.data);
  const close = () => setDialog(null);

  return (
    <Section
      title="Databases & roles"
      description="Made in the running server by Warden, and recorded in the audit log."
      actions={
        running && (
          <HStack gap="2" wrap="wrap">
            <Button size="sm" variant="outline" disabled={!roles.data} onClick={() => setDialog('database')}>
              New database
            </Button>
            <Button size="sm" variant="outline" disabled={!roles.data} onClick={() => setDialog('role')}>
              New role
            </Button>
          </HStack>
        )
      }
    >
      {!running ? (
        <EmptyState title="The instance is not running" description="Start it to see and change its databases and roles." />
      ) : (
        <Stack gap="6">
          <DataTable<Database>
            label="Databases"
            columns={[
              {
                key: 'name',
                header: 'Database',
                cell: (db) => (
                  <HStack gap="2">
                    <span>{db.name}</span>
                    {db.isDefault && <Badge>default</Badge>}
                    {db.system && <Badge variant="outline">system</Badge>}
                  </HStack>
                ),
              },
              { key: 'owner', header: 'Owner', cell: (db) => db.owner },
              { key: 'size', header: 'Size', numeric: true, cell: (db) => formatBytes(db.sizeBytes) },
              {
                key: 'actions',
                header: 'Actions',
                hiddenHeader: true,
                cell: (db) =>
                  !db.isDefault &&
                  !db.system && (
                    <Button size="xs" variant="outline" colorPalette="red" aria-label={`Drop database ${db.name}`} onClick={() => dispatch(databaseDropRequested({ instance, name: db.name }))}>
                      Drop
                    </Button>
                  ),
              },
            ]}
            rows={databases.data}
            rowKey={(db) => db.name}
            loading={databases.isLoading}
            fetching={databases.isFetching}
            failed={databases.isError}
            onRetry={databases.refetch}
            emptyText="No databases."
          />
          <DataTable<DbRole>
            label="Roles"
            columns={[
              {
                key: 'name',
                header: 'Role',
                cell: (role) => (
                  <HStack gap="2">
                    <span>{role.name}</span>
                    {role.owner && <Badge>owner</Badge>}
                    {role.superuser && <Badge colorPalette="red">superuser</Badge>}
                  </HStack>
                ),
              },
              { key: 'login', header: 'Can log in', cell: (role) => (role.login ? 'Yes' : 'No') },
              { key: 'memberOf', header: 'Member of', cell: (role) => role.memberOf.join(', ') || '—' },
              {
                key: 'actions',
                header: 'Actions',
                hiddenHeader: true,
                // Only roles made here change; the owner and the superuser are Warden's own.
                cell: (role) =>
                  role.managed && (
                    <HStack gap="2">
                      <Button size="xs" variant="outline" aria-label={`Edit role ${role.name}`} onClick={() => setDialog(role)}>
                        Edit
                      </Button>
                      <Button size="xs" variant="outline" colorPalette="red" aria-label={`Drop role ${role.name}`} onClick={() => dispatch(roleDropRequested({ instance, name: role.name }))}>
                        Drop
                      </Button>
                    </HStack>
                  ),
              },
            ]}
            rows={roles.data}
            rowKey={(role) => role.name}
            loading={roles.isLoading}
            fetching={roles.isFetching}
            failed={roles.isError}
            onRetry={roles.refetch}
            emptyText="No roles."
          />
        </Stack>
      )}

      <FormDialog title="New database" open={dialog === 'database'} onOpenChange={(open) => !open && close()}>
        <CreateDatabaseForm instanceId={instance.id} roles={usable} onDone={close} />
      </FormDialog>
      <FormDialog title="New role" open={dialog === 'role'} onOpenChange={(open) => !open && close()}>
        <CreateRoleForm instanceId={instance.id} roles={usable} onDone={close} />
      </FormDialog>
      <FormDialog title={typeof dialog === 'object' && dialog ? `Edit role ${dialog.name}` : 'Edit role'} open={typeof dialog === 'object' && dialog !== null} onOpenChange={(open) => !open && close()}>
        {typeof dialog === 'object' && dialog && <EditRoleForm instanceId={instance.id} role={dialog} roles={usable} onDone={close} />}
      </FormDialog>
    </Section>
  );
}
