import { Stack, Text } from '@chakra-ui/react';
import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import { useId } from 'react';
import { formatBytes } from '../../../contracts/backupValues';
import type { RecoveryCheck, RestorePlan } from '../../../contracts/pitr';
import { errorStatus, problemOf } from '../../api/problemText';
import { formatDateTime } from '../../components/DateTime';
import { Facts } from '../../components/Facts';
import { LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { formatDuration } from '../backups/backupLabels';
import { physicalKindLooks } from './physicalKinds';
import { inBothZones } from './targetTime';

interface RestorePlanViewProps {
  plan: RestorePlan | undefined;
  /** Asked, or about to be once typing pauses. */
  pending: boolean;
  error: FetchBaseQueryError | SerializedError | undefined;
  /** The source's last restore drill, whose pace the estimate comes from. */
  lastDrill: RecoveryCheck | null;
}

/**
 * Why there is no plan: a 400's own words (the window it states, what it found wrong), which only
 * this form shows; any other failure was toasted by the one error path.
 */
function planProblem(error: FetchBaseQueryError | SerializedError): string {
  const problem = errorStatus(error) === 400 ? problemOf(error) : undefined;
  const fields = Object.values(problem?.errors ?? {}).flat();
  return problem?.detail ?? (fields.length > 0 ? fields.join(' ') : 'The server could not work out a plan.');
}

/**
 * How long the restore should take and what says so: the server scales the pace of the last
 * successful drill to the WAL to replay, or, before any drill, that of the last restore from the source.
 */
function estimateText(seconds: number | null, lastDrill: RecoveryCheck | null): string {
  if (seconds === null) return lastDrill ? 'No estimate: no restore drill has given a pace yet' : 'No drill yet: no estimate before the first restore drill';
  return `About ${formatDuration(Math.round(seconds * 1000))}, ${lastDrill ? 'from the last drill' : 'from the last restore of this instance'}`;
}

/** What the restore will do, from a dry run: the backup it starts from, the WAL it replays, how long it should take. */
export function RestorePlanView({ plan, pending, error, lastDrill }: RestorePlanViewProps) {
  const headingId = useId();
  let body;
  if (pending) body = <LoadingState label="Working out the plan…" />;
  else if (error) body = <Notice status="error" title="No plan for this target">{planProblem(error)}</Notice>;
  else if (!plan) body = <Text color="fg.muted">The plan shows once the target is within the window.</Text>;
  else {
    const { backup } = plan;
    body = (
      <Facts
        items={[
          ['Starts from', `${physicalKindLooks[backup.kind].label} backup ${backup.id}, restorable from ${formatDateTime(backup.finishedAt, { seconds: true })}`],
          ['Recovers to', plan.targetTime ? inBothZones(new Date(plan.targetTime)) : 'The end of the archived WAL'],
          ['WAL to replay', `${plan.walSegments} ${plan.walSegments === 1 ? 'segment' : 'segments'}, ${formatBytes(plan.walBytes)}`],
          ['Expected duration', estimateText(plan.estimatedSeconds, lastDrill)],
          ['Timeline', String(plan.timeline)],
        ]}
      />
    );
  }
  return (
    <Stack as="section" aria-labelledby={headingId} gap="2" aria-busy={pending}>
      <Text id={headingId} fontWeight="semibold">
        Plan
      </Text>
      {body}
    </Stack>
  );
}
