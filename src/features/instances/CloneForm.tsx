import { Text } from '@chakra-ui/react';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Instance } from '../../../contracts/instances';
import { routePath } from '../../../contracts/routes';
import { SelectField } from '../../components/SelectField';
import { useCloneInstanceMutation } from './instancesApi';
import { pgMemberOptions } from './memberOptions';
import { NewInstanceNameForm } from './NewInstanceNameForm';

/**
 * Clones an instance into a new one, named here; the clone's page follows, where it is seen being
 * created. A PostgreSQL clone may be a cluster on Patroni: the way a single server becomes one.
 */
export function CloneForm({ instance, onDone }: { instance: Pick<Instance, 'id' | 'name' | 'type' | 'members'>; onDone: () => void }) {
  const navigate = useNavigate();
  const [clone, { isLoading, error, originalArgs }] = useCloneInstanceMutation();
  const [members, setMembers] = useState('1');

  const submit = async (name: string) => {
    const { data } = await clone({ id: instance.id, name, ...(members !== '1' && { members: Number(members) }) });
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
      otherFields={['members']}
      onSubmit={(name) => void submit(name)}
    >
      {(errors) =>
        instance.type === 'pg' && (
          <>
            <SelectField label="Members" value={members} options={pgMemberOptions} onChange={setMembers} errors={errors.members} />
            {members !== '1' && (
              <Text fontSize="sm" color="fg.muted">
                A cluster on Patroni: the first member takes the copy and the others copy it in turn. Its leader lock goes to the
                consensus store of {instance.name} when it is a cluster, else to a new 3-member etcd made with it.
              </Text>
            )}
          </>
        )
      }
    </NewInstanceNameForm>
  );
}
