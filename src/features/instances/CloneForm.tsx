import { Text } from '@chakra-ui/react';
import { useNavigate } from 'react-router-dom';
import type { Instance } from '../../../contracts/instances';
import { routePath } from '../../../contracts/routes';
import { useCloneInstanceMutation } from './instancesApi';
import { NewInstanceNameForm } from './NewInstanceNameForm';

/** Clones an instance into a new one, named here; the clone's page follows, where it is seen being created. */
export function CloneForm({ instance, onDone }: { instance: Pick<Instance, 'id' | 'name'>; onDone: () => void }) {
  const navigate = useNavigate();
  const [clone, { isLoading, error, originalArgs }] = useCloneInstanceMutation();

  const submit = async (name: string) => {
    const { data } = await clone({ id: instance.id, name });
    if (!data) return;
    onDone();
    navigate(routePath('singleInstance', { id: data.id }));
  };

  return (
    <NewInstanceNameForm
      intro={<Text>A new instance starts with a copy of {instance.name}’s data and settings. {instance.name} itself is not changed.</Text>}
      submitLabel="Clone"
      busy={isLoading}
      error={error}
      sentName={originalArgs?.name}
      onSubmit={(name) => void submit(name)}
    />
  );
}
