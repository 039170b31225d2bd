import { Badge, HStack, RadioGroup, SimpleGrid } from '@chakra-ui/react';
import { lazy, Suspense, useState } from 'react';
import type { Instance } from '../../../contracts/instances';
import { useAppSelector } from '../../app/hooks';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { Section } from '../../components/Section';
import { statusLabel } from '../../components/StatusBadge';
import { selectConnection } from '../realtime/selectors';
import { metricCharts } from './metricCharts';
import { defaultMetricRange, metricRanges, type MetricRange } from './metricRanges';
import { useInstanceMetricsQuery } from './metricsApi';

// uPlot comes with the charts, in a chunk of its own: the instance page draws first without it.
const MetricChart = lazy(() => import('./MetricChart').then((module) => ({ default: module.MetricChart })));

function RangePicker({ value, onChange }: { value: MetricRange; onChange: (range: MetricRange) => void }) {
  return (
    <RadioGroup.Root size="sm" value={value} onValueChange={(details) => onChange(details.value as MetricRange)}>
      <HStack gap="4" wrap="wrap">
        <RadioGroup.Label>Range</RadioGroup.Label>
        {metricRanges.map((range) => (
          <RadioGroup.Item key={range.value} value={range.value}>
            <RadioGroup.ItemHiddenInput />
            <RadioGroup.ItemIndicator />
            <RadioGroup.ItemText>{range.label}</RadioGroup.ItemText>
          </RadioGroup.Item>
        ))}
      </HStack>
    </RadioGroup.Root>
  );
}

/**
 * The instance's metrics over a range ending now. The page holds JoinInstance(id), so each new
 * sample arrives as MetricsAppended and extends the charts while the connection is up.
 */
export function MonitoringSection({ instance }: { instance: Instance }) {
  const [range, setRange] = useState<MetricRange>(defaultMetricRange);
  const connected = useAppSelector(selectConnection) === 'Connected';
  // New samples come only from a running instance over an open connection; else the charts end at the last one.
  const running = instance.status === 'running';
  const liveness = running ? (connected ? 'Live' : 'Not live') : `${statusLabel(instance.status)} — showing the last samples`;
  // currentData: after a range change, the old range's charts are not shown as the new one's.
  const { currentData: metrics, isFetching, refetch } = useInstanceMetricsQuery({ instanceId: instance.id, type: instance.type, range });

  let body;
  if (!metrics) {
    body = isFetching ? <LoadingState label="Loading metrics…" /> : <ErrorState title="Could not load the metrics." onRetry={refetch} />;
  } else if (!metrics.series.some((series) => series.points.length > 0)) {
    body = (
      <EmptyState
        title="No samples yet"
        description={
          instance.status === 'running'
            ? 'Samples are taken every few seconds while the instance runs; the first appear here as they arrive.'
            : 'Samples are taken while the instance runs. Start it to see its figures here.'
        }
      />
    );
  } else {
    body = (
      <Suspense fallback={<LoadingState label="Loading charts…" />}>
        <SimpleGrid columns={{ base: 1, xl: 2 }} gap="8">
          {metricCharts[instance.type]
            .filter((spec) => !spec.clusterOnly || instance.members > 1)
            .map((spec) => (
              <MetricChart key={spec.title} spec={spec} series={metrics.series} from={metrics.from} to={metrics.to} />
            ))}
        </SimpleGrid>
      </Suspense>
    );
  }

  return (
    <Section
      title="Monitoring"
      description={
        <HStack as="span" gap="2">
          <span>Figures sampled while the instance runs.</span>
          <Badge colorPalette={running && connected ? 'green' : 'gray'} variant="subtle">
            {liveness}
          </Badge>
        </HStack>
      }
      actions={<RangePicker value={range} onChange={setRange} />}
    >
      {body}
    </Section>
  );
}
