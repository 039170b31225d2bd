import { Button, HStack } from '@chakra-ui/react';
import { useState } from 'react';
import { roles as allRoles } from '../../../contracts/roles';
import { routePath } from '../../../contracts/routes';
import type { User } from '../../../contracts/users';
import type { Column } from '../../components/DataTable';
import { PagedTable } from '../../components/PagedTable';
import { DateTime } from '../../components/DateTime';
import { FormDialog } from '../../components/FormDialog';
import { PageHeader } from '../../components/PageHeader';
import { RoleBadge, roleLabel } from '../../components/RoleBadge';
import { SearchInput } from '../../components/SearchInput';
import { SelectField } from '../../components/SelectField';
import { TextLink } from '../../components/TextLink';
import { useListParams } from '../../components/useListParams';
import { useHubGroup } from '../realtime/useHubGroup';
import { CreateUserForm } from './CreateUserForm';
import { useRolesQuery, useUsersQuery } from './usersApi';
import { UserStatus } from './UserStatus';

const columns: Column<User>[] = [
  {
    key: 'email',
    header: 'E-mail',
    sortBy: 'email',
    cell: (user) => <TextLink to={routePath('admin-user', { id: user.id })}>{user.email}</TextLink>,
  },
  { key: 'role', header: 'Role', cell: (user) => <RoleBadge role={user.role} /> },
  { key: 'twoFactor', header: 'Two-factor', cell: (user) => (user.twoFactorEnabled ? 'On' : 'Off') },
  { key: 'status', header: 'Status', cell: (user) => <UserStatus user={user} /> },
  { key: 'created', header: 'Created', sortBy: 'createdAt', cell: (user) => <DateTime value={user.createdAt} /> },
  {
    key: 'lastLogin',
    header: 'Last sign-in',
    sortBy: 'lastLoginAt',
    cell: (user) => <DateTime value={user.lastLoginAt} fallback="Never" />,
  },
];

const statusOptions = [
  { value: '', label: 'Any status' },
  { value: 'false', label: 'Enabled' },
  { value: 'true', label: 'Disabled' },
];

export function UsersPage() {
  // Live: other admins' changes to users refresh this list.
  useHubGroup('Users');
  const list = useListParams({ filters: ['role', 'disabled'] });
  const users = useUsersQuery(list.args);
  // The server's list of roles, and the known ones until it answers.
  const { data: roles = [...allRoles] } = useRolesQuery();
  const [creating, setCreating] = useState(false);

  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone who can sign in, with their role and whether they are enabled."
        actions={<Button onClick={() => setCreating(true)}>Create user</Button>}
      />
      <HStack gap="4" mb="4" align="end" wrap="wrap">
        <SearchInput label="Search users" value={list.params.search ?? ''} onChange={list.setSearch} />
        <SelectField
          label="Filter by role"
          width="44"
          value={list.filters.role ?? ''}
          options={[{ value: '', label: 'Any role' }, ...roles.map((role) => ({ value: role, label: roleLabel(role) }))]}
          onChange={(role) => list.setFilter('role', role || undefined)}
        />
        <SelectField
          label="Filter by status"
          width="44"
          value={list.filters.disabled ?? ''}
          options={statusOptions}
          onChange={(disabled) => list.setFilter('disabled', disabled || undefined)}
        />
      </HStack>
      <PagedTable
        label="Users"
        columns={columns}
        rowKey={(user) => user.id}
        emptyText={list.args.search || list.filters.role || list.filters.disabled ? 'No users match.' : 'No users yet.'}
        query={users}
        list={list}
      />
      <FormDialog title="Create user" open={creating} onOpenChange={setCreating}>
        <CreateUserForm roles={roles} onDone={() => setCreating(false)} />
      </FormDialog>
    </>
  );
}
