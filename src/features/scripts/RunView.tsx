import { Heading, Stack, Text } from '@chakra-ui/react';
import type { ScriptRun } from '../../../contracts/scripts';
import { DateTime } from '../../components/DateTime';
import { Facts } from '../../components/Facts';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { formatDuration } from '../backups/backupLabels';
import { errorMarks, type ErrorMark } from './editorMarks';
import { RunOutcome } from './RunHistory';
import { RunProgress } from './RunProgress';
import { ChangesTable, StatementResults } from './RunResults';
import { useCancelScriptRunMutation } from './scriptsApi';
import { sourceText } from './SourcePicker';

interface RunViewProps {
  instanceId: string;
  run: ScriptRun | undefined;
  loading: boolean;
  failed: boolean;
  onRetry: () => void;
  /** Put the editor's cursor on a failed statement. */
  onShowError: (mark: ErrorMark) => void;
}

/** One run: who ran it on what, its progress while it runs, then each statement's outcome and the tables it changed. */
export function RunView({ instanceId, run, loading, failed, onRetry, onShowError }: RunViewProps) {
  const [cancel, cancelling] = useCancelScriptRunMutation();
  if (loading) return <LoadingState label="Loading the run…" />;
  if (failed && !run) return <ErrorState title="Could not load the run." onRetry={onRetry} />;
  if (!run) return <EmptyState title="No runs yet." description="Run the script to see what each statement does to a copy of the data." />;

  const active = run.finishedAt === null;
  return (
    <Stack gap="4">
      <Facts
        items={[
          ['Outcome', <RunOutcome run={run} />],
          ['Started', <DateTime value={run.startedAt} />],
          ['By', run.createdBy ?? '—'],
          ['Copy of', sourceText(run)],
          ['Duration', formatDuration(run.durationMs)],
        ]}
      />
      {active && <RunProgress run={run} onCancel={() => void cancel({ instanceId, runId: run.id })} cancelling={cancelling.isLoading} />}
      {run.error && (
        <Notice status={run.status === 'cancelled' ? 'warning' : 'error'} title={run.status === 'cancelled' ? 'The run was cancelled' : 'The run failed'}>
          {run.error}
        </Notice>
      )}
      {run.results.length > 0 && (
        <Stack gap="2">
          <Heading as="h3" size="sm">
            Statements
          </Heading>
          <StatementResults results={run.results} onShowError={(result) => onShowError(errorMarks([result])[0])} />
        </Stack>
      )}
      {!active && run.results.length === 0 && <Text color="fg.muted">No statement ran.</Text>}
      {run.changes && !active && (
        <Stack gap="2">
          <Heading as="h3" size="sm">
            Changes
          </Heading>
          <ChangesTable changes={run.changes} />
        </Stack>
      )}
    </Stack>
  );
}
