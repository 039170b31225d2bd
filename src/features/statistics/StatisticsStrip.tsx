import { Box, Button, HStack, Link, SimpleGrid, Skeleton, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { formatBytes } from '../../../contracts/backupValues';
import { routes } from '../../../contracts/routes';
import type { Statistics } from '../../../contracts/statistics';
import { useStatisticsQuery } from './statisticsApi';

interface Figure {
  label: string;
  value: (statistics: Statistics) => number;
  format?: (value: number) => string;
  /** The list that shows what the figure counts, in the URL params that screen reads. */
  to: (now: Date) => string;
  /** Drawn in the error colour when not zero. */
  alarming?: boolean;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** The Backups screen filters by local calendar day: the day 24 hours ago starts the range. */
const dayBefore = (now: Date) => {
  const at = new Date(now.getTime() - 86_400_000);
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
};

const instancesWhere = (filter: string) => () => `${routes.instances.path}?${filter}`;

const figures: Figure[] = [
  { label: 'Running', value: (s) => s.instances.byStatus.running, to: instancesWhere('status=running') },
  { label: 'Stopped', value: (s) => s.instances.byStatus.stopped, to: instancesWhere('status=stopped') },
  { label: 'Offline', value: (s) => s.instances.byStatus.offline, to: instancesWhere('status=offline'), alarming: true },
  { label: 'Health warnings', value: (s) => s.instances.byHealth.warn, to: instancesWhere('health=warn'), alarming: true },
  { label: 'Health errors', value: (s) => s.instances.byHealth.error, to: instancesWhere('health=error'), alarming: true },
  {
    label: 'Backups failed in 24 h',
    value: (s) => s.backups.failed24h,
    to: (now) => `${routes.backups.path}?status=failed&from=${dayBefore(now)}`,
    alarming: true,
  },
  { label: 'Backup storage used', value: (s) => s.backups.storageBytes, format: formatBytes, to: () => routes.backups.path },
  { label: 'Errors in logs in 24 h', value: (s) => s.logs.errors24h, to: () => `${routes.logs.path}?level=error,fatal&range=24h`, alarming: true },
];

const count = (n: number) => n.toLocaleString('en-US');

/** The eight figures two or four to a row, so no row is left with a single card. */
function FigureList({ busy, children }: { busy?: boolean; children: ReactNode }) {
  return (
    <SimpleGrid as="ul" aria-label="Figures" aria-busy={busy} columns={{ base: 2, lg: 4 }} gap="3" m="0" p="0">
      {children}
    </SimpleGrid>
  );
}

function FigureCard({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box as="li" listStyleType="none">
      <Box borderWidth="1px" borderColor="border" borderRadius="l2" px="4" py="3" h="full">
        <Text fontSize="sm" color="fg.muted">
          {label}
        </Text>
        {children}
      </Box>
    </Box>
  );
}

/**
 * The caller's figures at the top of the Instances screen, each a link to what it counts. They
 * change as StatisticsChanged arrives, without a request.
 */
export function StatisticsStrip() {
  const { data: statistics, isLoading, refetch } = useStatisticsQuery();

  if (!statistics) {
    if (isLoading) {
      return (
        <FigureList busy>
          {figures.map(({ label }) => (
            <FigureCard key={label} label={label}>
              <Skeleton h="7" w="12" mt="1" />
            </FigureCard>
          ))}
        </FigureList>
      );
    }
    return (
      <HStack gap="3" color="fg.muted" role="group" aria-label="Figures">
        <Text>Could not load the figures.</Text>
        <Button size="xs" variant="outline" onClick={refetch}>
          Retry
        </Button>
      </HStack>
    );
  }

  const now = new Date();
  return (
    <FigureList>
      {figures.map(({ label, value, format = count, to, alarming }) => {
        const n = value(statistics);
        const shown = format(n);
        return (
          <FigureCard key={label} label={label}>
            <Link asChild fontSize="2xl" fontWeight="semibold" color={alarming && n > 0 ? 'fg.error' : 'brand.fg'} fontVariantNumeric="tabular-nums">
              <RouterLink to={to(now)} aria-label={`${label}: ${shown}`}>
                {shown}
              </RouterLink>
            </Link>
          </FigureCard>
        );
      })}
    </FigureList>
  );
}
