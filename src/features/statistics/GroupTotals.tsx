import { Skeleton, Text } from '@chakra-ui/react';
import { formatBytes } from '../../../contracts/backupValues';
import { useStatisticsQuery } from './statisticsApi';

const countOf = (n: number, noun: string) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;

/** A group's instances in three figures: how many, how many run, and their data on disk; and its clusters when it has some. */
export function GroupTotals({ groupId }: { groupId: string }) {
  const { data: statistics, isLoading } = useStatisticsQuery({ groupId });
  if (isLoading) return <Skeleton h="5" w="64" />;
  // A failure was toasted already; the list below still tells the instances.
  if (!statistics) return null;
  const { total, byStatus, sizeBytes, clusters, members } = statistics.instances;
  return (
    <Text color="fg.muted" aria-live="polite">
      {countOf(total, 'instance')} · {byStatus.running.toLocaleString('en-US')} running
      {clusters > 0 && ` · ${countOf(clusters, 'cluster')} (${countOf(members, 'member')} in all)`} · {formatBytes(sizeBytes)} of data
    </Text>
  );
}
