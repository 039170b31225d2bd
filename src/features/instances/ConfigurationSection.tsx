import { Text } from '@chakra-ui/react';
import type { Instance } from '../../../contracts/instances';
import { routePath } from '../../../contracts/routes';
import { Facts } from '../../components/Facts';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { Section } from '../../components/Section';
import { TextLink } from '../../components/TextLink';
import { useInstanceConfigQuery } from './instancesApi';

/** What the configuration editor would open on: its revision, what differs from the defaults, what waits for a restart. */
export function ConfigurationSection({ instance }: { instance: Pick<Instance, 'id' | 'status'> }) {
  // Before its first initialization an instance has no configuration to read (the server answers 409).
  const initialized = instance.status !== 'unInitialized';
  const config = useInstanceConfigQuery(instance.id, { skip: !initialized });

  let body;
  if (!initialized) body = <EmptyState title="No configuration yet" description="It is written when the instance is initialized." />;
  else if (config.isLoading) body = <LoadingState label="Loading the configuration…" />;
  else if (!config.data) body = <ErrorState title="Could not load the configuration." onRetry={config.refetch} />;
  else {
    const { revision, parameters, pendingRestart } = config.data;
    const changed = parameters.filter((parameter) => parameter.value !== (parameter.default ?? '')).length;
    body = (
      <Facts
        items={[
          ['Revision', revision === 0 ? 'None saved yet' : revision],
          ['Non-default parameters', changed],
          [
            'Waiting for a restart',
            pendingRestart.length === 0 ? (
              'Nothing'
            ) : (
              <Text color="fg.warning">{pendingRestart.join(', ')}</Text>
            ),
          ],
        ]}
      />
    );
  }

  return (
    <Section
      title="Configuration"
      actions={<TextLink to={routePath('editConfiguration', { id: instance.id })}>Edit configuration</TextLink>}
    >
      {body}
    </Section>
  );
}
