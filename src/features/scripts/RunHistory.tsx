import { Badge, Button } from '@chakra-ui/react';
import type { ScriptRunSummary } from '../../../contracts/scripts';
import { DateTime, formatDateTime } from '../../components/DateTime';
import { PagedTable } from '../../components/PagedTable';
import { useListParams } from '../../components/useListParams';
import { formatDuration } from '../backups/backupLabels';
import { useScriptRunsQuery } from './scriptsApi';
import { sourceText } from './SourcePicker';

/** A run's outcome in a word, the colour saying whether it went well. */
export function RunOutcome({ run }: { run: Pick<ScriptRunSummary, 'status' | 'failures'> }) {
  switch (run.status) {
    case 'succeeded':
      return <Badge colorPalette="green">Succeeded</Badge>;
    case 'failed':
      return <Badge colorPalette="red">{run.failures === 1 ? 'Failed: 1 error' : run.failures > 1 ? `Failed: ${run.failures} errors` : 'Failed'}</Badge>;
    case 'cancelled':
      return <Badge colorPalette="gray">Cancelled</Badge>;
    default:
      return <Badge colorPalette="blue">Running</Badge>;
  }
}

interface RunHistoryProps {
  instanceId: string;
  shownId: string | null;
  onShow: (runId: string) => void;
}

/** The instance's runs, newest first, paged on the server; Show puts one's results on the page. */
export function RunHistory({ instanceId, shownId, onShow }: RunHistoryProps) {
  const list = useListParams({ prefix: 'runs' });
  const query = useScriptRunsQuery({ instanceId, page: list.params.page, pageSize: list.params.pageSize });
  return (
    <PagedTable
      label="Runs"
      pagerLabel="Runs pages"
      sortable={false}
      query={query}
      list={list}
      rowKey={(run) => run.id}
      emptyText="No runs yet."
      columns={[
        { key: 'startedAt', header: 'Started', cell: (run) => <DateTime value={run.startedAt} /> },
        { key: 'createdBy', header: 'By', cell: (run) => run.createdBy ?? '—' },
        { key: 'source', header: 'Source', cell: sourceText },
        { key: 'outcome', header: 'Outcome', cell: (run) => <RunOutcome run={run} /> },
        { key: 'duration', header: 'Duration', cell: (run) => formatDuration(run.durationMs), numeric: true },
        {
          key: 'show',
          header: 'Results',
          hiddenHeader: true,
          cell: (run) => (
            <Button
              size="xs"
              variant="outline"
              aria-pressed={run.id === shownId}
              aria-label={`Show the run of ${formatDateTime(run.startedAt, { seconds: true })}`}
              onClick={() => onShow(run.id)}
            >
              Show
            </Button>
          ),
        },
      ]}
    />
  );
}
