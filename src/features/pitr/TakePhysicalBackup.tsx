import { Button, HStack } from '@chakra-ui/react';
import { useState } from 'react';
import { physicalBackupKinds, type PhysicalBackupKind } from '../../../contracts/pitr';
import { Select } from '../../components/Select';
import { useTakeBackupMutation } from '../backups/backupsApi';
import { physicalKindLooks } from './physicalKinds';

interface TakePhysicalBackupProps {
  instanceId: string;
  /** Differential and incremental backups build on a full one. */
  hasFull: boolean;
  /** A backup of the instance is being taken: one at a time. */
  running: boolean;
}

/** Takes a physical backup of the chosen kind; its progress shows where the page shows the running backup. */
export function TakePhysicalBackup({ instanceId, hasFull, running }: TakePhysicalBackupProps) {
  const [kind, setKind] = useState<PhysicalBackupKind>('full');
  const [takeBackup, taking] = useTakeBackupMutation();
  const options = physicalBackupKinds.map((value) => ({
    value,
    label: `${physicalKindLooks[value].label}: ${physicalKindLooks[value].says}`,
    disabled: value !== 'full' && !hasFull,
  }));

  return (
    <HStack gap="2" role="group" aria-label="Physical backup">
      <Select size="sm" aria-label="Kind of physical backup" value={kind} options={options} onChange={(value) => setKind(value as PhysicalBackupKind)} />
      <Button
        size="sm"
        variant="outline"
        flexShrink={0}
        disabled={running}
        loading={taking.isLoading}
        onClick={() => void takeBackup({ instanceId, kind: 'database', physical: kind })}
      >
        Take physical backup
      </Button>
    </HStack>
  );
}
