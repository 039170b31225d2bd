import { Box, Button, Checkbox, HStack, Stack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { formatBytes } from '../../../contracts/backupValues';
import type { Instance } from '../../../contracts/instances';
import { healthLevels, instanceStatuses, instanceTypes } from '../../../contracts/instanceValues';
import { hasRole } from '../../../contracts/roles';
import { routePath, routes } from '../../../contracts/routes';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import type { Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { HealthBadge, healthLabel } from '../../components/HealthBadge';
import { PagedTable } from '../../components/PagedTable';
import { PageHeader } from '../../components/PageHeader';
import { SearchInput } from '../../components/SearchInput';
import { SelectField } from '../../components/SelectField';
import { StatusBadge, statusLabel } from '../../components/StatusBadge';
import { TextLink } from '../../components/TextLink';
import { useListParams } from '../../components/useListParams';
import { selectCurrentUser } from '../auth/selectors';
import { useAllGroupsQuery } from '../groups/groupsApi';
import { useInstanceSparklinesQuery } from '../monitoring/metricsApi';
import { InstanceSparkline } from '../monitoring/Sparkline';
import { useHubGroup } from '../realtime/useHubGroup';
import { StatisticsStrip } from '../statistics/StatisticsStrip';
import { useInstancesQuery } from './instancesApi';
import { bulkActionRequested, type BulkAction } from './instancesSaga';
import { OperationProgress } from './OperationProgress';
import { typeLabels } from './typeLabels';

const filters = ['type', 'status', 'health', 'groupId'] as const;

const typeOptions = [{ value: '', label: 'Any type' }, ...instanceTypes.map((type) => ({ value: type, label: typeLabels[type] }))];
const statusOptions = [
  { value: '', label: 'Any status' },
  ...instanceStatuses.map((status) => ({ value: status, label: statusLabel(status) })),
];
const healthOptions = [{ value: '', label: 'Any health' }, ...healthLevels.map((level) => ({ value: level, label: healthLabel(level) }))];

const dataColumns: Column<Instance>[] = [
  {
    key: 'name',
    header: 'Name',
    sortBy: 'name',
    cell: (instance) => <TextLink to={routePath('singleInstance', { id: instance.id })}>{instance.name}</TextLink>,
  },
  // A cluster says how many members it has: the list is where a degraded one is first seen.
  { key: 'type', header: 'Type', sortBy: 'type', cell: (instance) => (instance.members > 1 ? `${typeLabels[instance.type]} · ${instance.members} members` : typeLabels[instance.type]) },
  {
    key: 'status',
    header: 'Status',
    sortBy: 'status',
    cell: (instance) => (
      <HStack gap="3">
        <StatusBadge status={instance.status} reason={instance.statusReason} />
        <OperationProgress operation={instance.operation} />
      </HStack>
    ),
  },
  { key: 'health', header: 'Health', sortBy: 'health', cell: (instance) => <HealthBadge level={instance.health.level} /> },
  { key: 'group', header: 'Group', cell: (instance) => instance.groupName ?? '—' },
  { key: 'version', header: 'Version', cell: (instance) => instance.engineVersion ?? '—' },
  // The data folder as the metrics collector last measured it.
  { key: 'size', header: 'Size', sortBy: 'sizeBytes', numeric: true, cell: (instance) => formatBytes(instance.sizeBytes) },
  { key: 'created', header: 'Created', sortBy: 'createdAt', cell: (instance) => <DateTime value={instance.createdAt} /> },
];

function SelectBox({ label, checked, onChange }: { label: string; checked: boolean | 'indeterminate'; onChange: (on: boolean) => void }) {
  return (
    <Checkbox.Root checked={checked} onCheckedChange={(details) => onChange(details.checked === true)}>
      <Checkbox.HiddenInput />
      <Checkbox.Control />
      <Checkbox.Label>
        <Box srOnly>{label}</Box>
      </Checkbox.Label>
    </Checkbox.Root>
  );
}

export function InstancesPage() {
  // Live: instances created or deleted elsewhere, and every status change, show up here.
  useHubGroup('Instances');
  const dispatch = useAppDispatch();
  const isAdmin = hasRole(useAppSelector(selectCurrentUser), 'admin');
  const list = useListParams({ filters });
  const instances = useInstancesQuery(list.args);
  const { data: groups = [] } = useAllGroupsQuery();
  // Only the rows on screen can be chosen: what the bulk buttons act on is always in view.
  const [selectedIds, setSelectedIds] = useState<ReadonlySet<string>>(new Set());
  const rows = instances.data?.items ?? [];
  // CPU, which both engines have: one request for the page's rows, again every minute.
  const { data: cpu } = useInstanceSparklinesQuery(
    { ids: rows.map((instance) => instance.id), name: 'cpu_percent' },
    { skip: rows.length === 0, pollingInterval: 60_000 },
  );
  const selected = rows.filter((instance) => selectedIds.has(instance.id));

  const select = (ids: string[], on: boolean) =>
    setSelectedIds((current) => {
      const next = new Set(current);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });

  const columns: Column<Instance>[] = [
    {
      key: 'select',
      header: 'Select',
      hiddenHeader: true,
      cell: (instance) => (
        <SelectBox label={`Select ${instance.name}`} checked={selectedIds.has(instance.id)} onChange={(on) => select([instance.id], on)} />
      ),
    },
    ...dataColumns,
    {
      key: 'cpu',
      header: 'CPU (1 h)',
      cell: (instance) => <InstanceSparkline data={cpu} instanceId={instance.id} label="CPU over the last hour" />,
    },
  ];

  const groupOptions = [
    { value: '', label: 'Any group' },
    ...(isAdmin ? [{ value: 'none', label: 'No group' }] : []),
    ...groups.map((group) => ({ value: group.id, label: group.name })),
  ];
  const filterFields = [
    { name: 'type', label: 'Type', width: '40', options: typeOptions },
    { name: 'status', label: 'Status', width: '44', options: statusOptions },
    { name: 'health', label: 'Health', width: '40', options: healthOptions },
    { name: 'groupId', label: 'Group', width: '44', options: groupOptions },
  ] as const;
  const filtered = !!list.args.search || filters.some((name) => list.filters[name]);
  const bulk = (action: BulkAction) => dispatch(bulkActionRequested({ instances: selected, action }));

  return (
    <>
      <PageHeader
        title="Instances"
        description="Every PostgreSQL and etcd instance you can reach, with its status and health."
        actions={
          <HStack gap="2" wrap="wrap">
            <Button asChild variant="outline">
              <RouterLink to={routes.instanceCreationGraph.path}>Instance creation graph</RouterLink>
            </Button>
            <Button asChild variant="outline">
              <RouterLink to={routes.instancesUpdate.path}>Instances update</RouterLink>
            </Button>
            <Button asChild>
              <RouterLink to={routes.createInstance.path}>Create instance</RouterLink>
            </Button>
          </HStack>
        }
      />
      <Stack gap="4">
        <StatisticsStrip />
        <HStack gap="4" align="end" wrap="wrap">
          <SearchInput label="Search instances" value={list.params.search ?? ''} onChange={list.setSearch} />
          {filterFields.map(({ name, label, width, options }) => (
            <SelectField
              key={name}
              label={label}
              width={width}
              value={list.filters[name] ?? ''}
              options={options}
              onChange={(value) => list.setFilter(name, value || undefined)}
            />
          ))}
        </HStack>
        {rows.length > 0 && (
          <HStack gap="4" wrap="wrap" role="toolbar" aria-label="Selected instances">
            <SelectBox
              label="Select all on this page"
              checked={selected.length === 0 ? false : selected.length === rows.length ? true : 'indeterminate'}
              onChange={(on) => select(rows.map((instance) => instance.id), on)}
            />
            <Text color="fg.muted" fontSize="sm" aria-live="polite">
              {selected.length === 0 ? 'None selected' : `${selected.length} selected`}
            </Text>
            <Button size="sm" variant="outline" disabled={selected.length === 0} onClick={() => bulk('start')}>
              Start selected
            </Button>
            <Button size="sm" variant="outline" colorPalette="red" disabled={selected.length === 0} onClick={() => bulk('stop')}>
              Stop selected
            </Button>
            <Button size="sm" variant="outline" disabled={selected.length === 0} onClick={() => bulk('restart')}>
              Restart selected
            </Button>
            <Button size="sm" variant="outline" disabled={selected.length === 0} onClick={() => bulk('backup')}>
              Back up selected
            </Button>
            <Button size="sm" variant="outline" colorPalette="red" disabled={selected.length === 0} onClick={() => bulk('delete')}>
              Delete selected
            </Button>
          </HStack>
        )}
        <PagedTable
          label="Instances"
          columns={columns}
          rowKey={(instance) => instance.id}
          emptyText={filtered ? 'No instances match.' : isAdmin ? 'No instances yet.' : 'No instances in your groups yet.'}
          query={instances}
          list={list}
        />
      </Stack>
    </>
  );
}
