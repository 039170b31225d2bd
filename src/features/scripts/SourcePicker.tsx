import type { Backup } from '../../../contracts/backups';
import { formatBytes } from '../../../contracts/backupValues';
import type { ScriptRunSummary } from '../../../contracts/scripts';
import { formatDateTime } from '../../components/DateTime';
import { SelectField, type Option } from '../../components/SelectField';

export const newestBackup = 'latest-backup';
export const liveCopy = 'live';
export const emptyInstance = 'empty';

const backupLabel = (backup: Pick<Backup, 'startedAt' | 'sizeBytes'>) =>
  `Backup of ${formatDateTime(backup.startedAt)}${backup.sizeBytes !== null ? ` (${formatBytes(backup.sizeBytes)})` : ''}`;

/** What a run was made from, as its history row says it. */
export function sourceText({ source, copiedFrom }: Pick<ScriptRunSummary, 'source' | 'copiedFrom'>): string {
  if (source === emptyInstance) return 'Empty instance';
  if (copiedFrom === 'empty') return 'Empty instance (nothing to copy)';
  if (source === newestBackup) return 'Newest backup';
  if (source === liveCopy) return 'Live copy';
  return 'Chosen backup';
}

interface SourcePickerProps {
  value: string;
  onChange: (source: string) => void;
  /** The instance's succeeded database backups, newest first. */
  backups: readonly Backup[];
  /** The instance has no backup at all: the newest backup cannot be chosen. */
  noBackup: boolean;
}

/**
 * What the sandbox is made from: the newest backup (the default), one chosen backup, a copy of the
 * data now, or nothing. Without a backup the newest one stays on show but cannot be chosen, so the
 * person picks the live copy or the empty instance on purpose.
 */
export function SourcePicker({ value, onChange, backups, noBackup }: SourcePickerProps) {
  const options: Option[] = [
    { value: newestBackup, label: noBackup ? 'Newest backup (there is none)' : 'Newest backup', disabled: noBackup },
    ...backups.map((backup) => ({ value: backup.id, label: backupLabel(backup) })),
    { value: liveCopy, label: 'Live copy (the data now)' },
    { value: emptyInstance, label: 'Empty instance (no data)' },
  ];
  return <SelectField label="Run on a copy of" value={value} options={options} onChange={onChange} width="20rem" />;
}
