import { Badge, Button, Checkbox, HStack, Spinner, Stack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { routePath } from '../../../contracts/routes';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { DataTable, type Column } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { TextLink } from '../../components/TextLink';
import { useHubGroup } from '../realtime/useHubGroup';
import { typeLabels } from './typeLabels';
import { useUpdatableInstancesQuery } from './updatesApi';
import { instancesUpdateRequested } from './updatesSaga';
import { finishedCleared, isUpdateRunning, selectUpdateProgress, type UpdateProgress, type UpdateTarget } from './updatesSlice';

interface Row extends UpdateTarget {
  progress: UpdateProgress | undefined;
  /** Still on an older engine, by the server's latest answer. */
  updatable: boolean;
}

function Progress({ progress }: { progress: UpdateProgress | undefined }) {
  if (!progress) return <Text color="fg.muted">Not started</Text>;
  switch (progress.phase) {
    case 'queued':
      return <Badge variant="subtle">Queued</Badge>;
    case 'updating':
      return (
        <HStack gap="2">
          <Spinner size="xs" />
          <Badge colorPalette="blue" variant="subtle">
            Updating
          </Badge>
        </HStack>
      );
    case 'done':
      return (
        <Badge colorPalette="green" variant="subtle">
          Updated to {progress.to}
        </Badge>
      );
    case 'failed':
      return (
        <Stack gap="1" align="flex-start">
          <Badge colorPalette="red" variant="subtle">
            Failed
          </Badge>
          {progress.error && (
            <Text fontSize="sm" color="fg.error">
              {progress.error}
            </Text>
          )}
        </Stack>
      );
  }
}

/** /instances-update: instances on an older engine than the newest installed, updated on request with live progress. */
export function InstancesUpdatePage() {
  // Progress arrives as the list-level InstanceUpdated and OperationCompleted events.
  useHubGroup('Instances');
  const dispatch = useAppDispatch();
  const updatable = useUpdatableInstancesQuery();
  const progress = useAppSelector(selectUpdateProgress);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());

  // Updated instances leave the server's list; their rows stay, from what was picked, until cleared.
  const listed: Row[] = (updatable.data ?? []).map(({ instance, latestVersion }) => ({
    id: instance.id,
    name: instance.name,
    type: instance.type,
    from: instance.engineVersion,
    to: latestVersion,
    progress: progress[instance.id],
    updatable: true,
  }));
  const listedIds = new Set(listed.map(({ id }) => id));
  const rows = updatable.data
    ? [...listed, ...Object.values(progress).filter(({ id }) => !listedIds.has(id)).map((entry) => ({ ...entry, progress: entry, updatable: false }))]
    : undefined;

  const selectable = (rows ?? []).filter((row) => row.updatable && !isUpdateRunning(row.progress?.phase));
  const selected = selectable.filter(({ id }) => picked.has(id));
  const allPicked = selectable.length > 0 && selected.length === selectable.length;
  const finished = Object.values(progress).some(({ phase }) => !isUpdateRunning(phase));

  const pick = (id: string, on: boolean) =>
    setPicked((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  // The picks stay: a refused confirmation keeps them, and running rows cannot be picked anyway.
  const update = () =>
    dispatch(instancesUpdateRequested({ targets: selected.map(({ id, name, type, from, to }) => ({ id, name, type, from, to })) }));

  const columns: Column<Row>[] = [
    {
      key: 'pick',
      header: 'Select',
      hiddenHeader: true,
      cell: (row) =>
        selectable.includes(row) && (
          <Checkbox.Root checked={picked.has(row.id)} onCheckedChange={({ checked }) => pick(row.id, checked === true)}>
            <Checkbox.HiddenInput aria-label={`Select ${row.name}`} />
            <Checkbox.Control />
          </Checkbox.Root>
        ),
    },
    { key: 'name', header: 'Name', cell: ({ id, name }) => <TextLink to={routePath('singleInstance', { id })}>{name}</TextLink> },
    { key: 'type', header: 'Type', cell: ({ type }) => typeLabels[type] },
    { key: 'version', header: 'Engine', cell: ({ from, to }) => `${from ?? 'unknown'} → ${to}` },
    { key: 'progress', header: 'Progress', cell: ({ progress: entry }) => <Progress progress={entry} /> },
  ];

  return (
    <>
      <PageHeader
        title="Instances update"
        description="Instances whose engine is older than the newest installed one. Updating restarts them on it."
      />
      <Stack gap="4">
        {rows && rows.length > 0 && (
          <HStack justify="space-between" wrap="wrap" gap="3">
            <Checkbox.Root
              checked={allPicked ? true : selected.length > 0 ? 'indeterminate' : false}
              disabled={selectable.length === 0}
              onCheckedChange={() => setPicked(new Set(allPicked ? [] : selectable.map(({ id }) => id)))}
            >
              <Checkbox.HiddenInput />
              <Checkbox.Control />
              <Checkbox.Label>Select all</Checkbox.Label>
            </Checkbox.Root>
            <HStack gap="2">
              {finished && (
                <Button variant="outline" onClick={() => dispatch(finishedCleared())}>
                  Clear finished
                </Button>
              )}
              <Button disabled={selected.length === 0} onClick={update}>
                Update selected{selected.length > 0 ? ` (${selected.length})` : ''}
              </Button>
            </HStack>
          </HStack>
        )}
        <DataTable
          label="Updatable instances"
          columns={columns}
          rows={rows}
          rowKey={({ id }) => id}
          loading={updatable.isLoading}
          fetching={updatable.isFetching}
          failed={updatable.isError}
          onRetry={() => void updatable.refetch()}
          emptyText="Every instance runs the newest installed engine."
        />
      </Stack>
    </>
  );
}
