import { Box, Stack } from '@chakra-ui/react';
import { skipToken } from '@reduxjs/toolkit/query/react';
import { useEffect, useState } from 'react';
import type { RetentionPreview, RetentionPreviewRequest } from '../../../contracts/backups';
import { formatBytes } from '../../../contracts/backupValues';
import { DataTable } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { kindLabels, statusLooks } from './backupLabels';
import { useRetentionPreviewQuery } from './backupsApi';

/** How long the limits must rest before the preview asks about them, so typing "30" asks once. */
const previewDelayMs = 400;

/**
 * What a retention policy would delete now, following the policy as it is edited: asked at once
 * when first wanted, then once edits pause; read again when the instance's backups change.
 * `policy` null: nothing is wanted (the preview is closed, or the limits are not valid).
 */
export function useRetentionPreview(instanceId: string, policy: RetentionPreviewRequest | null) {
  const key = policy && JSON.stringify({ instanceId, keepLast: policy.keepLast, keepDays: policy.keepDays, includeManual: policy.includeManual });
  const [settled, setSettled] = useState(key);
  // Opening and closing take effect at once; only edits wait for a pause.
  if ((key === null || settled === null) && settled !== key) setSettled(key);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(key), previewDelayMs);
    return () => clearTimeout(timer);
  }, [key]);

  const asked: (RetentionPreviewRequest & { instanceId: string }) | null = key !== null && settled !== null ? JSON.parse(settled) : null;
  const query = useRetentionPreviewQuery(asked ?? skipToken);
  return { ...query, wanted: key !== null, updating: settled !== key || query.isFetching };
}

/** The preview's answer (its notice is a status, so a change is announced); busy while it is being asked again about other limits or changed backups. */
export function RetentionPreviewResult({ preview, updating }: { preview: RetentionPreview | undefined; updating: boolean }) {
  if (!preview) return <LoadingState label="Previewing retention…" />;
  const count = preview.wouldDelete.length;
  const kept = `${preview.keptCount} backup${preview.keptCount === 1 ? '' : 's'} kept`;
  return (
    <Box aria-busy={updating}>
      {count === 0 ? (
        <Notice status="info" title="This policy would delete nothing now">
          {kept}.
        </Notice>
      ) : (
        <Stack gap="3">
          <Notice status="warning" title={`This policy would delete ${count} backup${count === 1 ? '' : 's'} now`}>
            {formatBytes(preview.freedBytes)} freed, {kept}.
          </Notice>
          <DataTable
            label="Backups the policy would delete"
            columns={[
              { key: 'started', header: 'Started', cell: (backup) => <DateTime value={backup.startedAt} /> },
              { key: 'kind', header: 'Kind', cell: (backup) => kindLabels[backup.kind] },
              { key: 'status', header: 'Status', cell: (backup) => statusLooks[backup.status].label },
              { key: 'size', header: 'Size', numeric: true, cell: (backup) => formatBytes(backup.sizeBytes) },
            ]}
            rows={preview.wouldDelete}
            rowKey={(backup) => backup.id}
            loading={false}
            emptyText="Nothing would be deleted."
          />
        </Stack>
      )}
    </Box>
  );
}
