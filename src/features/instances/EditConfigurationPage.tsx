import { Button, HStack, Stack } from '@chakra-ui/react';
import { useParams } from 'react-router-dom';
import type { Instance } from '../../../contracts/instances';
import { routePath } from '../../../contracts/routes';
import { errorStatus } from '../../api/problemText';
import { useAppDispatch } from '../../app/hooks';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { TextLink } from '../../components/TextLink';
import { useHubGroup } from '../realtime/useHubGroup';
import { ConfigurationForm } from './ConfigurationForm';
import { instanceActionRequested } from './instancesSaga';
import { useInstanceConfigQuery, useInstanceQuery } from './instancesApi';
import { OperationProgress } from './OperationProgress';
import { RevisionsSection } from './RevisionsSection';
import { typeLabels } from './typeLabels';

const description = 'The instance’s parameters; every saved change becomes a revision you can restore.';

/** Saved values that wait for a restart, and the restart (confirmed first) that brings them into effect. */
function PendingRestart({ instance, pending }: { instance: Instance | undefined; pending: string[] }) {
  const dispatch = useAppDispatch();
  if (pending.length === 0) return null;
  return (
    <Notice status="warning" title={pending.length === 1 ? '1 saved change waits for a restart' : `${pending.length} saved changes wait for a restart`}>
      <Stack gap="2" align="flex-start">
        <span>{pending.join(', ')}</span>
        {instance && (
          <Button
            size="sm"
            loading={instance.operation?.kind === 'restart'}
            loadingText="Restarting…"
            disabled={instance.operation !== null}
            onClick={() => dispatch(instanceActionRequested({ instance, action: 'restart' }))}
          >
            Restart now
          </Button>
        )}
      </Stack>
    </Notice>
  );
}

/** /instances/{id}/configuration: the instance's parameters, their changes and revisions. */
export function EditConfigurationPage() {
  const { id = '' } = useParams();
  // Reloads, restarts and other people's saves arrive as this instance's events.
  useHubGroup('Instance', id);
  const { data: instance } = useInstanceQuery(id);
  const config = useInstanceConfigQuery(id);

  let body;
  if (config.isLoading) body = <LoadingState label="Loading the configuration…" />;
  else if (config.data) {
    body = (
      <Stack gap="6">
        <PendingRestart instance={instance} pending={config.data.pendingRestart} />
        <ConfigurationForm key={id} instanceId={id} config={config.data} />
        <RevisionsSection
          instance={{ id, name: instance?.name ?? id }}
          currentRevision={config.data.revision}
          units={new Map(config.data.parameters.map((parameter) => [parameter.name, parameter.unit]))}
        />
      </Stack>
    );
  } else if (errorStatus(config.error) === 404) {
    body = (
      <EmptyState title="Instance not found" description="It may have been deleted, or it is in a group you are not a member of.">
        <TextLink to={routePath('instances')}>Back to instances</TextLink>
      </EmptyState>
    );
  } else body = <ErrorState title="Could not load the configuration." onRetry={config.refetch} />;

  return (
    <>
      <PageHeader
        title={instance ? `${instance.name} configuration` : 'Configuration'}
        description={instance ? [typeLabels[instance.type], instance.engineVersion].filter(Boolean).join(' ') : description}
        actions={
          <HStack gap="3" align="center">
            {instance && <StatusBadge status={instance.status} reason={instance.statusReason} />}
            {instance && <OperationProgress operation={instance.operation} />}
            <TextLink to={routePath('singleInstance', { id })}>Back to the instance</TextLink>
          </HStack>
        }
      />
      {body}
    </>
  );
}
