import { Badge, Button, HStack, Stack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { useParams } from 'react-router-dom';
import type { Instance } from '../../../contracts/instances';
import { hasRole } from '../../../contracts/roles';
import { routePath, routes } from '../../../contracts/routes';
import { errorStatus } from '../../api/problemText';
import { useAppSelector } from '../../app/hooks';
import { DataTable } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Facts } from '../../components/Facts';
import { FormDialog } from '../../components/FormDialog';
import { HealthBadge } from '../../components/HealthBadge';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { PageHeader } from '../../components/PageHeader';
import { Section } from '../../components/Section';
import { StatusBadge } from '../../components/StatusBadge';
import { TextLink } from '../../components/TextLink';
import { selectCurrentUser } from '../auth/selectors';
import { MonitoringSection } from '../monitoring/MonitoringSection';
import { useHubGroup } from '../realtime/useHubGroup';
import { ClusterHistorySection } from './ClusterHistorySection';
import { ConfigurationSection } from './ConfigurationSection';
import { ConnectionSection } from './ConnectionSection';
import { MembersSection } from './MembersSection';
import { DatabasesSection } from './DatabasesSection';
import { InstanceActions } from './InstanceActions';
import { InstanceDetailsForm } from './InstanceDetailsForm';
import { useInstanceQuery, useIsLatestQuery } from './instancesApi';
import { LogsSection } from './LogsSection';
import { OperationProgress } from './OperationProgress';
import { typeLabels } from './typeLabels';

const description = 'Status, health, connection details and operations of one instance.';

export function InstancePage() {
  const { id = '' } = useParams();
  // Live: status, health and operations of this instance as they change.
  useHubGroup('Instance', id);
  const { data: instance, isLoading, error, refetch } = useInstanceQuery(id);

  if (isLoading) {
    return (
      <>
        <PageHeader title="Instance" description={description} />
        <LoadingState label="Loading the instance…" />
      </>
    );
  }
  if (!instance) {
    return (
      <>
        <PageHeader title="Instance" description={description} />
        {errorStatus(error) === 404 ? (
          <EmptyState
            title="No such instance"
            description="There is no instance with this id, or you cannot see it: it may have been deleted, or it belongs to a group you are not a member of."
          >
            <TextLink to={routes.instances.path}>Back to instances</TextLink>
          </EmptyState>
        ) : (
          <ErrorState title="Could not load the instance." onRetry={refetch} />
        )}
      </>
    );
  }
  return <InstanceDetail instance={instance} />;
}

function EngineVersion({ instance }: { instance: Instance }) {
  const { data: latest } = useIsLatestQuery(instance.id, { skip: instance.engineVersion === null });
  if (instance.engineVersion === null) return <>Not known yet</>;
  return (
    <HStack gap="3" wrap="wrap">
      <span>{instance.engineVersion}</span>
      {latest && !latest.latest && latest.latestVersion && (
        <TextLink to={routes.instancesUpdate.path}>Update available: {latest.latestVersion}</TextLink>
      )}
    </HStack>
  );
}

function InstanceDetail({ instance }: { instance: Instance }) {
  const isAdmin = hasRole(useAppSelector(selectCurrentUser), 'admin');
  const [editing, setEditing] = useState(false);
  const pages = [
    ['Configuration', routePath('editConfiguration', { id: instance.id })],
    ['Database backups', routePath('instanceDatabaseBackups', { id: instance.id })],
    ['File backups', routePath('instanceFileBackups', { id: instance.id })],
    ['Script', routePath('instanceScript', { id: instance.id })],
  ] as const;

  return (
    <>
      <PageHeader
        title={instance.name}
        description={instance.description || `A ${typeLabels[instance.type]} instance.`}
        actions={<InstanceActions instance={instance} />}
      />
      <Stack gap="6">
        <HStack gap="3" wrap="wrap" aria-label="State" role="group">
          <Badge variant="outline">{typeLabels[instance.type]}</Badge>
          <StatusBadge status={instance.status} reason={instance.statusReason} />
          <HealthBadge level={instance.health.level} />
          <OperationProgress operation={instance.operation} />
        </HStack>
        {instance.statusReason && instance.status !== 'running' && (
          <Text color="fg.warning">{instance.statusReason}</Text>
        )}
        <HStack as="nav" aria-label="Instance pages" gap="5" wrap="wrap">
          {pages.map(([label, to]) => (
            <TextLink key={to} to={to}>
              {label}
            </TextLink>
          ))}
        </HStack>

        <Section
          title="Details"
          actions={
            <Button size="sm" variant="outline" onClick={() => setEditing(true)}>
              Edit details
            </Button>
          }
        >
          <Facts
            items={[
              ['Engine version', <EngineVersion instance={instance} />],
              [
                'Group',
                instance.groupId ? (
                  <TextLink to={routePath('group', { id: instance.groupId })}>{instance.groupName ?? instance.groupId}</TextLink>
                ) : (
                  'No group'
                ),
              ],
              ['Should be', instance.desiredState === 'running' ? 'Running' : 'Stopped'],
              ['Created', <DateTime value={instance.createdAt} />],
              ['Created by', instance.createdBy ?? '—'],
              ['Last backup', <DateTime value={instance.lastBackupAt} fallback="Never" />],
            ]}
          />
        </Section>

        <Section title="Health checks">
          <DataTable
            label="Health checks"
            columns={[
              { key: 'name', header: 'Check', cell: (check) => check.name },
              { key: 'level', header: 'Level', cell: (check) => <HealthBadge level={check.level} /> },
              { key: 'message', header: 'Message', cell: (check) => check.message },
            ]}
            rows={instance.health.checks}
            rowKey={(check) => check.name}
            loading={false}
            emptyText="No health checks reported yet."
          />
        </Section>

        {instance.members > 1 && <MembersSection instance={instance} />}
        {instance.members > 1 && instance.type === 'pg' && <ClusterHistorySection instance={instance} />}
        <MonitoringSection instance={instance} />
        <ConnectionSection instance={instance} />
        {instance.type === 'pg' && <DatabasesSection instance={instance} />}
        <ConfigurationSection instance={instance} />
        <LogsSection instanceId={instance.id} />
      </Stack>

      <FormDialog title="Edit details" open={editing} onOpenChange={setEditing}>
        <InstanceDetailsForm instance={instance} canMove={isAdmin} onDone={() => setEditing(false)} />
      </FormDialog>
    </>
  );
}
