import { Button, HStack, Progress } from '@chakra-ui/react';
import type { ScriptRunPhase, ScriptRunSummary } from '../../../contracts/scripts';

const phaseLabels: Record<ScriptRunPhase, string> = {
  queued: 'Waiting to start',
  preparing: 'Preparing the copy',
  starting: 'Starting the copy',
  running: 'Running',
  cleaning: 'Cleaning up',
  finished: 'Finished',
};

/** Where a run is, in words: "Running statement 2 of 5", "Preparing the copy". */
export function phaseText({ phase, progress }: Pick<ScriptRunSummary, 'phase' | 'progress'>): string {
  if (phase === 'running' && progress) return `Running statement ${progress.statement} of ${progress.of}`;
  return phaseLabels[phase];
}

interface RunProgressProps {
  run: ScriptRunSummary;
  onCancel: () => void;
  cancelling: boolean;
}

/** The run that is going on: its phase, the statement it is at, and Cancel. */
export function RunProgress({ run, onCancel, cancelling }: RunProgressProps) {
  const said = phaseText(run);
  const { progress } = run;
  const value = run.phase === 'running' && progress && progress.of > 0 ? Math.round((100 * (progress.statement - 1)) / progress.of) : null;
  return (
    <HStack gap="4" align="end" wrap="wrap">
      {/* Without a statement count the bar runs indeterminate, and says so by having no aria-valuenow. */}
      <Progress.Root value={value} max={100} size="sm" flex="1" minW="16rem">
        <HStack justify="space-between" mb="1">
          <Progress.Label>Run progress</Progress.Label>
          <Progress.ValueText fontWeight="normal" aria-live="polite">
            {said}
          </Progress.ValueText>
        </HStack>
        <Progress.Track aria-label="Run progress" aria-valuetext={said}>
          <Progress.Range />
        </Progress.Track>
      </Progress.Root>
      <Button size="sm" variant="outline" colorPalette="red" onClick={onCancel} loading={cancelling}>
        Cancel run
      </Button>
    </HStack>
  );
}
