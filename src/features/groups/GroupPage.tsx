import { Button, HStack, Stack } from '@chakra-ui/react';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { hasRole } from '../../../contracts/roles';
import { routes } from '../../../contracts/routes';
import { errorStatus } from '../../api/problemText';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { PageHeader } from '../../components/PageHeader';
import { Section } from '../../components/Section';
import { TextLink } from '../../components/TextLink';
import { selectCurrentUser } from '../auth/selectors';
import { useHubGroup } from '../realtime/useHubGroup';
import { GroupDetailsForm } from './GroupDetailsForm';
import { useGroupQuery } from './groupsApi';
import { groupDeletionRequested } from './groupsSaga';
import { InstancesSection } from './InstancesSection';
import { MembersSection } from './MembersSection';
import { ProcessLimitsSection } from './ProcessLimitsSection';
import { QuotaSection } from './QuotaSection';

const description = 'The members and instances of one group.';

export function GroupPage() {
  useHubGroup('Groups');
  const { id = '' } = useParams();
  const dispatch = useAppDispatch();
  const isAdmin = hasRole(useAppSelector(selectCurrentUser), 'admin');
  const { data: group, isLoading, error, refetch } = useGroupQuery(id);

  if (isLoading) {
    return (
      <>
        <PageHeader title="Group" description={description} />
        <LoadingState label="Loading the group…" />
      </>
    );
  }
  if (!group) {
    return (
      <>
        <PageHeader title="Group" description={description} />
        {errorStatus(error) === 404 ? (
          <EmptyState title="Group not found" description="It may have been deleted, or you are not a member of it.">
            <TextLink to={routes.groups.path}>Back to groups</TextLink>
          </EmptyState>
        ) : (
          <ErrorState title="Could not load the group." onRetry={refetch} />
        )}
      </>
    );
  }

  return (
    <>
      <PageHeader
        title={group.name}
        description={group.description || description}
        actions={
          <HStack gap="2" wrap="wrap">
            <Button asChild>
              <RouterLink to={`${routes.createInstance.path}?${new URLSearchParams({ groupId: group.id })}`}>Add instance</RouterLink>
            </Button>
            {isAdmin && (
              <Button variant="outline" colorPalette="red" onClick={() => dispatch(groupDeletionRequested({ group }))}>
                Delete group
              </Button>
            )}
          </HStack>
        }
      />
      <Stack gap="6">
        {isAdmin && (
          <Section title="Details">
            <GroupDetailsForm key={`${group.name}\n${group.description}`} group={group} />
          </Section>
        )}
        <QuotaSection key={`${group.quota.maxInstances}/${group.quota.maxBackupBytes}`} group={group} canEdit={isAdmin} />
        <ProcessLimitsSection
          key={`${group.limits.maxProcesses}/${group.limits.maxOpenFiles}/${group.limits.maxMemoryBytes}`}
          group={group}
          canEdit={isAdmin}
        />
        <MembersSection group={group} canEdit={isAdmin} />
        <InstancesSection groupId={group.id} />
      </Stack>
    </>
  );
}
