import { Box, Button, chakra, Field, Group, HStack, Input, Stack, Table } from '@chakra-ui/react';
import { skipToken } from '@reduxjs/toolkit/query/react';
import type { GraphPoint } from '../../../contracts/instances';
import { formatDate } from '../../components/DateTime';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { Facts } from '../../components/Facts';
import { Notice } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { Section } from '../../components/Section';
import { SelectField } from '../../components/SelectField';
import { useInstanceCreationGraphQuery } from './graphsApi';
import { graphBuckets, isDay, presets, useGraphParams, type GraphParams } from './graphRange';
import { TableFrame } from '../ui/TableFrame';
import { InstanceCreationChart } from './InstanceCreationChart';

const bucketOptions = graphBuckets.map((bucket) => ({ value: bucket, label: `By ${bucket}` }));
const typeOptions = [
  { value: '', label: 'All types' },
  { value: 'pg', label: 'PostgreSQL' },
  { value: 'etcd', label: 'etcd' },
];

function Totals({ points, type }: { points: GraphPoint[]; type: GraphParams['type'] }) {
  const sum = (pick: (point: GraphPoint) => number) => points.reduce((total, point) => total + pick(point), 0);
  const items: [string, number][] = [['Created in the range', sum((point) => point.total)]];
  if (!type) items.push(['PostgreSQL', sum((point) => point.pg)], ['etcd', sum((point) => point.etcd)]);
  items.push(['Created up to the end', points.at(-1)?.cumulative ?? 0]);
  return <Facts items={items} />;
}

/** The points as a table: what the chart shows, for screen readers and for reading exact numbers. */
function PointsTable({ points, bucket }: { points: GraphPoint[]; bucket: GraphParams['bucket'] }) {
  return (
    <chakra.details>
      <chakra.summary cursor="pointer" color="fg.muted">
        The numbers as a table
      </chakra.summary>
      <Box mt="2">
        <TableFrame>
          <Table.Root aria-label="Instances created per bucket" size="sm">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader>{bucket === 'day' ? 'Day' : bucket === 'week' ? 'Week of' : 'Month'}</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">PostgreSQL</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">etcd</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">Total</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">Created so far</Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {points.map((point) => (
                <Table.Row key={point.bucket}>
                  <Table.Cell>
                    <time dateTime={point.bucket}>{formatDate(point.bucket)}</time>
                  </Table.Cell>
                  <Table.Cell textAlign="end">{point.pg}</Table.Cell>
                  <Table.Cell textAlign="end">{point.etcd}</Table.Cell>
                  <Table.Cell textAlign="end">{point.total}</Table.Cell>
                  <Table.Cell textAlign="end">{point.cumulative}</Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </TableFrame>
      </Box>
    </chakra.details>
  );
}

/** /graphs/instance-creation: instances created per day, week or month, by type, with the running count. */
export function InstanceCreationGraphPage() {
  const { params, request, today, update } = useGraphParams();
  const graph = useInstanceCreationGraphQuery(request ?? skipToken);
  const { data } = graph;

  let body;
  if (!request) body = <Notice status="error" title="The range ends before it starts">Pick a From day on or before the To day.</Notice>;
  else if (graph.isLoading) body = <LoadingState label="Loading the graph…" />;
  else if (!data) body = <ErrorState title="Could not load the graph." onRetry={graph.refetch} />;
  else if (data.points.every((point) => point.total === 0)) {
    body = (
      <>
        <Totals points={data.points} type={params.type} />
        <EmptyState title="No instances were created in this range." description="Try a longer range or another type." />
      </>
    );
  } else {
    body = (
      <Stack gap="4" aria-busy={graph.isFetching}>
        <Totals points={data.points} type={params.type} />
        <Box as="figure" aria-label="Instances created per bucket, and created so far">
          <InstanceCreationChart points={data.points} type={params.type} />
        </Box>
        <PointsTable points={data.points} bucket={data.bucket} />
      </Stack>
    );
  }

  return (
    <>
      <PageHeader title="Instance creation" description="How many instances were created over time, by type." />
      <Stack gap="6">
        <Section title="Range">
          <HStack gap="4" wrap="wrap" align="flex-end">
            <Field.Root w="auto">
              <Field.Label>From</Field.Label>
              <Input type="date" value={params.from} max={today} onChange={(event) => isDay(event.target.value) && update({ from: event.target.value })} />
            </Field.Root>
            <Field.Root w="auto">
              <Field.Label>To</Field.Label>
              <Input type="date" value={params.to} max={today} onChange={(event) => isDay(event.target.value) && update({ to: event.target.value })} />
            </Field.Root>
            <SelectField
              label="Bucket"
              width="40"
              value={params.bucket}
              options={bucketOptions}
              onChange={(bucket) => update({ bucket: bucket as GraphParams['bucket'] })}
            />
            <SelectField
              label="Type"
              width="40"
              value={params.type ?? ''}
              options={typeOptions}
              onChange={(type) => update({ type: (type || undefined) as GraphParams['type'] })}
            />
          </HStack>
          <Group role="group" aria-label="Presets" attached={false} gap="2" flexWrap="wrap">
            {presets.map((preset) => {
              const range = preset.range(today);
              const active = range.from === params.from && range.to === params.to && preset.bucket === params.bucket;
              return (
                <Button
                  key={preset.label}
                  size="sm"
                  variant={active ? 'solid' : 'outline'}
                  aria-pressed={active}
                  onClick={() => update({ ...range, bucket: preset.bucket })}
                >
                  {preset.label}
                </Button>
              );
            })}
          </Group>
        </Section>
        {body}
      </Stack>
    </>
  );
}
