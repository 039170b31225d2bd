import { Box, HStack, List, Stack, Text } from '@chakra-ui/react';
import { useId } from 'react';
import { physicalBackupKinds, type PhysicalBackup, type PhysicalBackupKind, type RecoveryWindow } from '../../../contracts/pitr';
import { formatDateTime } from '../../components/DateTime';
import { physicalKindLooks } from './physicalKinds';
import { formatAgo } from './targetTime';
import { useNow } from './useNow';

const at = (iso: string) => formatDateTime(iso, { seconds: true });

/** Where moments sit on the band: the span from the oldest thing shown to the newest, as percentages. */
function scaleOf(window: RecoveryWindow) {
  const moments = [
    window.earliest,
    window.latest,
    window.lastFailedAt,
    ...window.backups.flatMap((backup) => [backup.startedAt, backup.finishedAt]),
    ...window.gaps.flatMap((gap) => [gap.from, gap.to]),
    ...window.restorePoints.map((point) => point.at),
  ]
    .filter((moment): moment is string => moment !== null)
    .map(Date.parse);
  const from = Math.min(...moments);
  const span = Math.max(Math.max(...moments) - from, 1);
  return (iso: string) => `${Math.min(100, Math.max(0, ((Date.parse(iso) - from) / span) * 100))}%`;
}

/** Archiving failed after the last segment it archived: the window stopped growing. */
const isArchivingFailing = ({ lastFailedAt, lastArchivedAt }: Pick<RecoveryWindow, 'lastFailedAt' | 'lastArchivedAt'>) =>
  lastFailedAt !== null && (lastArchivedAt === null || Date.parse(lastFailedAt) > Date.parse(lastArchivedAt));

const walOf = (wal: string | null) => (wal ? ` (WAL ${wal})` : '');

const backupText = (backup: PhysicalBackup) =>
  `${physicalKindLooks[backup.kind].label} backup ${backup.id}, restorable from ${at(backup.finishedAt)}`;

/** A backup's mark: its kind's shape with its letter; its words are beside it or in the list for screen readers. */
function KindMark({ kind }: { kind: PhysicalBackupKind }) {
  const { shape, letter } = physicalKindLooks[kind];
  return (
    <Box
      as="span"
      aria-hidden="true"
      display="inline-flex"
      alignItems="center"
      justifyContent="center"
      boxSize="4"
      flexShrink={0}
      bg="bg.panel"
      borderWidth="2px"
      borderColor="fg"
      borderRadius={shape === 'circle' ? 'full' : '0'}
      transform={shape === 'diamond' ? 'rotate(45deg) scale(0.8)' : undefined}
      fontSize="2xs"
      fontWeight="bold"
      lineHeight="1"
    >
      <Box as="span" transform={shape === 'diamond' ? 'rotate(-45deg)' : undefined}>
        {letter}
      </Box>
    </Box>
  );
}

const gapLook = {
  bg: 'bg.error',
  borderColor: 'border.error',
  // Stripes as well as red: a gap reads as one without telling colours apart.
  backgroundImage: 'repeating-linear-gradient(135deg, transparent 0 4px, var(--w-danger) 4px 6px)',
} as const;

/** "Latest restorable: 12 s ago", aging every second; the hub's RecoveryWindowChanged moves the moment itself. */
function LatestRestorable({ latest }: { latest: string }) {
  const now = useNow();
  return (
    <Text>
      Latest restorable:{' '}
      <time dateTime={latest} title={at(latest)}>
        {formatAgo(now - Date.parse(latest))}
      </time>
    </Text>
  );
}

/**
 * The recoverable window of a pg instance as a band from its earliest to its latest moment, with the
 * physical backups it rests on as marks, its gaps and the last archive failure in red with stripes,
 * and named restore points as flags. The drawing is for the eye; the same facts are written out
 * for screen readers, and the problems for everyone.
 */
export function RecoveryTimeline({ window, earliest, latest }: { window: RecoveryWindow; earliest: string; latest: string }) {
  const captionId = useId();
  const x = scaleOf(window);
  const failedAt = window.lastFailedAt;
  const failing = isArchivingFailing(window);
  const problems = [
    ...window.gaps.map((gap) => `Gap ${at(gap.from)} – ${at(gap.to)}: ${gap.reason}`),
    ...(failedAt
      ? [
          failing
            ? `Archiving failed ${at(failedAt)}${walOf(window.lastFailedWal)}, nothing archived since: ${window.reason ?? 'no reason given.'}`
            : `Last archive failure ${at(failedAt)}${walOf(window.lastFailedWal)}, archived again since.`,
        ]
      : []),
    // What else keeps the window from growing (archiving lagging behind, say).
    ...(window.reason && !failing ? [window.reason] : []),
  ];

  return (
    <Box as="figure" role="figure" aria-labelledby={captionId} m="0">
      <Stack gap="3">
        <HStack justify="space-between" wrap="wrap" gap="2">
          <Text as="figcaption" id={captionId} fontWeight="semibold">
            Recoverable from {at(earliest)} to {at(latest)}
          </Text>
          <LatestRestorable latest={latest} />
        </HStack>

        <Box aria-hidden="true" position="relative" h="20" mx="3">
          {/* The restore points' flags above the band. */}
          {window.restorePoints.map((point) => (
            <Box key={`${point.name}@${point.at}`} position="absolute" left={x(point.at)} top="0" h="12" title={`Restore point ${point.name}, ${at(point.at)}`}>
              <Box position="absolute" left="0" top="4" bottom="0" borderLeftWidth="2px" borderColor="brand.fg" />
              <Text fontSize="xs" color="brand.fg" whiteSpace="nowrap" maxW="40" truncate lineHeight="1rem">
                ⚑ {point.name}
              </Text>
            </Box>
          ))}
          <Box position="absolute" top="12" left="0" right="0" h="5" bg="bg.muted" borderRadius="l1" />
          <Box
            position="absolute"
            top="12"
            h="5"
            left={x(earliest)}
            right={`calc(100% - ${x(latest)})`}
            bg="bg.success"
            borderWidth="1px"
            borderColor="border.success"
            borderRadius="l1"
          />
          {window.gaps.map((gap) => (
            <Box
              key={gap.from}
              position="absolute"
              top="12"
              h="5"
              minW="1"
              left={x(gap.from)}
              right={`calc(100% - ${x(gap.to)})`}
              borderWidth="1px"
              title={`Gap ${at(gap.from)} – ${at(gap.to)}: ${gap.reason}`}
              {...gapLook}
            />
          ))}
          {window.backups.map((backup) => (
            <Box key={backup.id} position="absolute" top="12" mt="0.5" left={x(backup.finishedAt)} transform="translateX(-50%)" title={backupText(backup)}>
              <KindMark kind={backup.kind} />
            </Box>
          ))}
          {failedAt && (
            <Text
              position="absolute"
              top="12"
              left={x(failedAt)}
              transform="translateX(-50%)"
              color="fg.error"
              fontWeight="bold"
              title={`Archive failure ${at(failedAt)}`}
            >
              ✕
            </Text>
          )}
        </Box>

        <HStack as="ul" listStyleType="none" wrap="wrap" gap="4" fontSize="sm" color="fg.muted" aria-label="Legend">
          {physicalBackupKinds.map((kind) => (
            <HStack as="li" key={kind} gap="1.5">
              <KindMark kind={kind} />
              {physicalKindLooks[kind].label} backup
            </HStack>
          ))}
          <HStack as="li" gap="1.5">
            <Text as="span" aria-hidden="true" color="brand.fg">
              ⚑
            </Text>
            Restore point
          </HStack>
          <HStack as="li" gap="1.5">
            <Box as="span" aria-hidden="true" boxSize="4" borderWidth="1px" {...gapLook} />
            Gap
          </HStack>
          <HStack as="li" gap="1.5">
            <Text as="span" aria-hidden="true" color="fg.error" fontWeight="bold">
              ✕
            </Text>
            Archive failure
          </HStack>
        </HStack>

        {problems.length > 0 && (
          <List.Root aria-label="Problems of the window" gap="1" color="fg.error" fontSize="sm" ps="5">
            {problems.map((problem) => (
              <List.Item key={problem}>{problem}</List.Item>
            ))}
          </List.Root>
        )}

        <Box srOnly>
          <ul aria-label="On the timeline">
            {window.backups.map((backup) => (
              <li key={backup.id}>{backupText(backup)}</li>
            ))}
            {window.restorePoints.map((point) => (
              <li key={`${point.name}@${point.at}`}>
                Restore point {point.name}, {at(point.at)}
              </li>
            ))}
          </ul>
        </Box>
      </Stack>
    </Box>
  );
}
