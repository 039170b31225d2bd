import { Button, HStack } from '@chakra-ui/react';
import { useState } from 'react';
import type { Instance } from '../../../contracts/instances';
import { useAppDispatch } from '../../app/hooks';
import { FormDialog } from '../../components/FormDialog';
import { CloneForm } from './CloneForm';
import { actionLabels, canRun, type InstanceAction } from './instanceActions';
import { instanceActionRequested, instanceDeletionRequested } from './instancesSaga';

const actions: InstanceAction[] = ['start', 'stop', 'restart', 'reload'];

/**
 * The instance's operations. While one runs every button waits: the server refuses a second
 * operation anyway (409), and the progress shows beside the status.
 */
export function InstanceActions({ instance }: { instance: Instance }) {
  const dispatch = useAppDispatch();
  const busy = instance.operation !== null;
  const [cloning, setCloning] = useState(false);

  return (
    <HStack gap="2" wrap="wrap" align="start" role="group" aria-label="Operations" aria-busy={busy}>
      {actions.map((action) => (
        <Button
          key={action}
          size="sm"
          variant="outline"
          disabled={busy || !canRun(action, instance.status)}
          onClick={() => dispatch(instanceActionRequested({ instance, action }))}
        >
          {actionLabels[action]}
        </Button>
      ))}
      <Button size="sm" variant="outline" disabled={busy} onClick={() => setCloning(true)}>
        Clone
      </Button>
      <Button size="sm" colorPalette="red" disabled={busy} onClick={() => dispatch(instanceDeletionRequested({ instance }))}>
        Delete
      </Button>
      <FormDialog title={`Clone ${instance.name}`} open={cloning} onOpenChange={setCloning}>
        <CloneForm instance={instance} onDone={() => setCloning(false)} />
      </FormDialog>
    </HStack>
  );
}
