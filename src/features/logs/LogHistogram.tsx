import { Box, HStack, Text } from '@chakra-ui/react';
import { logLevels } from '../../../contracts/logLevels';
import { formatDateTime } from '../../components/DateTime';
import { levelLooks } from './logLevelLooks';
import { useLogHistogramQuery, whenOpened, type LogFilterArgs } from './logsApi';

/** Entries per level over the chosen range; a bar is a button that zooms to its slice. */
export default function LogHistogram({ filters, from, to, onZoom }: { filters: LogFilterArgs; from: string; to: string; onZoom: (from: string, to: string) => void }) {
  const { data, isError } = useLogHistogramQuery({ ...filters, from, to, buckets: 60 }, whenOpened);
  if (isError) return <Text color="fg.muted">The level histogram could not be loaded.</Text>;
  if (!data) return <Box h="16" aria-hidden />;
  const totals = data.buckets.map((b) => Object.values(b.counts).reduce((sum, n) => sum + n, 0));
  const highest = Math.max(1, ...totals);
  return (
    <HStack role="group" aria-label="Entries per level over time" gap="px" h="16" align="end">
      {data.buckets.map((bucket, i) => {
        const end = new Date(Date.parse(bucket.start) + data.bucketMs).toISOString();
        const label = `${formatDateTime(bucket.start)}: ${totals[i]} entries${logLevels
          .filter((level) => bucket.counts[level])
          .map((level) => `, ${bucket.counts[level]} ${levelLooks[level].label.toLowerCase()}`)
          .join('')}; zoom in`;
        return (
          <Box
            as="button"
            key={bucket.start}
            aria-label={label}
            title={label}
            flex="1"
            h="full"
            display="flex"
            flexDirection="column-reverse"
            cursor="pointer"
            _hover={{ bg: 'bg.subtle' }}
            _focusVisible={{ outline: '2px solid', outlineColor: 'colorPalette.focusRing' }}
            onClick={() => onZoom(bucket.start, end < to ? end : to)}
          >
            {logLevels.map((level) =>
              bucket.counts[level] ? (
                <Box key={level} bg={`${levelLooks[level].palette}.solid`} h={`${(bucket.counts[level]! / highest) * 100}%`} />
              ) : null,
            )}
          </Box>
        );
      })}
    </HStack>
  );
}
