import { Button, HStack, Stack } from '@chakra-ui/react';
import { useState } from 'react';
import { useParams } from 'react-router-dom';
import { roles as allRoles, type Role } from '../../../contracts/roles';
import { routes } from '../../../contracts/routes';
import type { User } from '../../../contracts/users';
import { errorStatus } from '../../api/problemText';
import { useAppDispatch } from '../../app/hooks';
import { DateTime } from '../../components/DateTime';
import { Facts } from '../../components/Facts';
import { FormDialog } from '../../components/FormDialog';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { PageHeader } from '../../components/PageHeader';
import { RoleBadge, roleLabel } from '../../components/RoleBadge';
import { Section } from '../../components/Section';
import { SelectField } from '../../components/SelectField';
import { TextLink } from '../../components/TextLink';
import { useHubGroup } from '../realtime/useHubGroup';
import { ResetPasswordForm } from './ResetPasswordForm';
import { useRolesQuery, useUserQuery } from './usersApi';
import { accessChangeRequested, roleChangeRequested, twoFactorResetRequested, unlockRequested } from './usersSaga';
import { UserStatus } from './UserStatus';

const description = 'One account: its role, its state, its password and its sign-in protection.';
const protectionText =
  'Five failed sign-ins lock the account for 5 minutes from that address. Two-factor can be reset for a user who lost their phone.';

export function UserPage() {
  useHubGroup('Users');
  const { id = '' } = useParams();
  const { data: user, isLoading, error, refetch } = useUserQuery(id);

  if (isLoading) {
    return (
      <>
        <PageHeader title="User" description={description} />
        <LoadingState label="Loading the user…" />
      </>
    );
  }
  if (!user) {
    return (
      <>
        <PageHeader title="User" description={description} />
        {errorStatus(error) === 404 ? (
          <EmptyState title="User not found" description="There is no user with this id; they may have been removed.">
            <TextLink to={routes['admin-users'].path}>Back to users</TextLink>
          </EmptyState>
        ) : (
          <ErrorState title="Could not load the user." onRetry={refetch} />
        )}
      </>
    );
  }
  return <UserDetail user={user} />;
}

function UserDetail({ user }: { user: User }) {
  const dispatch = useAppDispatch();
  const { data: roles = [...allRoles] } = useRolesQuery();
  const [chosenRole, setChosenRole] = useState<Role | null>(null);
  const role = chosenRole ?? user.role;
  const [resetting, setResetting] = useState(false);

  return (
    <>
      <PageHeader title={user.email} description={description} />
      <Stack gap="6" maxW="3xl">
        <Section title="Account">
          <Facts
            items={[
              ['Role', <RoleBadge role={user.role} />],
              ['Status', <UserStatus user={user} />],
              ['E-mail confirmed', user.emailConfirmed ? 'Yes' : 'No'],
              ['Two-factor', user.twoFactorEnabled ? 'On' : 'Off'],
              ['Created', <DateTime value={user.createdAt} />],
              ['Last sign-in', <DateTime value={user.lastLoginAt} fallback="Never" />],
            ]}
          />
        </Section>

        <Section title="Permissions" description="Admins manage users and see every group; regular users see their own groups.">
          <HStack gap="3" align="end" wrap="wrap">
            <SelectField
              label="Role"
              width="48"
              value={role}
              options={roles.map((value) => ({ value, label: roleLabel(value) }))}
              onChange={(value) => setChosenRole(value as Role)}
            />
            <Button disabled={role === user.role} onClick={() => dispatch(roleChangeRequested({ user, role }))}>
              Save role
            </Button>
          </HStack>
        </Section>

        <Section
          title="Access"
          description={user.disabled ? 'This user cannot sign in.' : 'Disabling stops sign-in and ends every session of this user.'}
        >
          <HStack>
            {user.disabled ? (
              <Button variant="outline" onClick={() => dispatch(accessChangeRequested({ user, disabled: false }))}>
                Enable user
              </Button>
            ) : (
              <Button variant="outline" colorPalette="red" onClick={() => dispatch(accessChangeRequested({ user, disabled: true }))}>
                Disable user
              </Button>
            )}
          </HStack>
        </Section>

        <Section title="Password" description="Set a new password for this user; their sessions end.">
          <HStack>
            <Button variant="outline" onClick={() => setResetting(true)}>
              Reset password
            </Button>
          </HStack>
        </Section>

        <Section title="Sign-in protection" description={protectionText}>
          <HStack gap="3" wrap="wrap">
            <Button variant="outline" onClick={() => dispatch(unlockRequested({ user }))}>
              Unlock sign-in
            </Button>
            {user.twoFactorEnabled && (
              <Button variant="outline" colorPalette="red" onClick={() => dispatch(twoFactorResetRequested({ user }))}>
                Reset two-factor
              </Button>
            )}
          </HStack>
        </Section>
      </Stack>
      <FormDialog title="Reset password" open={resetting} onOpenChange={setResetting}>
        <ResetPasswordForm user={user} onDone={() => setResetting(false)} />
      </FormDialog>
    </>
  );
}
