import { HStack, Progress } from '@chakra-ui/react';
import type { Backup } from '../../../contracts/backups';
import { formatBytes } from '../../../contracts/backupValues';
import { formatDateTime } from '../../components/DateTime';

/** The backup being taken now: bytes done, percent when the total is known, and what it is doing. */
export function RunningBackup({ backup }: { backup: Backup }) {
  const { progress } = backup;
  const percent = progress?.percent ?? null;
  const said = [
    `${formatBytes(progress?.bytes ?? 0)} done`,
    percent !== null && `${Math.round(percent)}%`,
    progress?.step,
  ]
    .filter(Boolean)
    .join(' · ');
  const label = backup.status === 'pending' ? 'Backup waiting to start' : `Backup started ${formatDateTime(backup.startedAt)}`;

  return (
    // Without a percent the bar runs indeterminate, and says so by having no aria-valuenow.
    <Progress.Root value={percent === null ? null : Math.round(percent)} max={100} size="sm">
      <HStack justify="space-between" wrap="wrap" gap="2" mb="1">
        <Progress.Label>{label}</Progress.Label>
        <Progress.ValueText fontWeight="normal" color="fg.muted">
          {said}
        </Progress.ValueText>
      </HStack>
      <Progress.Track aria-label="Backup progress" aria-valuetext={said}>
        <Progress.Range />
      </Progress.Track>
    </Progress.Root>
  );
}
