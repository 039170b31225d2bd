import { Box, Button, Checkbox, Field, HStack, Input, Stack, Switch, Text, Wrap } from '@chakra-ui/react';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { formatBytes } from '../../../contracts/backupValues';
import { logLevels, type LogLevel } from '../../../contracts/logLevels';
import type { LogEntry } from '../../../contracts/logs';
import { hasRole } from '../../../contracts/roles';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { SearchInput } from '../../components/SearchInput';
import { SelectField } from '../../components/SelectField';
import { useListParams } from '../../components/useListParams';
import { selectCurrentUser } from '../auth/selectors';
import { useInstancesQuery } from '../instances/instancesApi';
import { useHubGroup } from '../realtime/useHubGroup';
import { defaultRange, quickRanges, resolveFilters, urlFilterNames } from './logFilters';
import { levelLooks } from './logLevelLooks';
import { filterQuery, useLogSizeQuery, useLogsInfiniteQuery, whenOpened } from './logsApi';
import { clearLogsRequested } from './logsSaga';
import { liveToggled, tailClosed, tailHeld, tailOpened, tailReleased } from './logsSlice';
import { LogTable } from './LogTable';

// Heavy or secondary parts load when first shown.
const LogHistogram = lazy(() => import('./LogHistogram'));
const LogDrawer = lazy(() => import('./LogDrawer'));

const apiUrl = process.env.WARDEN_API_URL ?? '';

/** datetime-local's value (local time, minutes) from ISO, and back. */
const toLocalInput = (iso?: string) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : undefined);

function matchingText(count: number, exact: boolean): string {
  if (!exact) return `More than ${count - 1} matching entries`;
  return `${count} matching ${count === 1 ? 'entry' : 'entries'}`;
}

/**
 * The log viewer of the Logs screen and of an instance's page (with `instanceId` fixed): filters
 * kept in the URL, a level histogram, the virtualized entries with a live tail, an entry drawer,
 * export, size and clearing.
 */
export function LogsView({ instanceId: fixedInstance, prefix = '' }: { instanceId?: string; prefix?: string }) {
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectCurrentUser);
  const isAdmin = !!user && hasRole(user, 'admin');
  const list = useListParams({ prefix, filters: urlFilterNames });
  const url = { ...list.filters, search: list.params.search, ...(fixedInstance && { instanceId: fixedInstance }) };
  const urlKey = JSON.stringify(url);

  // A quick range is anchored when the filters change, so one view reads one consistent window.
  const [anchor, setAnchor] = useState(() => Date.now());
  const [anchoredFor, setAnchoredFor] = useState(urlKey);
  if (anchoredFor !== urlKey) {
    setAnchoredFor(urlKey);
    setAnchor(Date.now());
  }
  const filters = useMemo(() => resolveFilters(JSON.parse(urlKey), anchor), [urlKey, anchor]);

  useHubGroup('Logs', fixedInstance ?? null);
  const filtersKey = JSON.stringify(filters);
  useEffect(() => {
    dispatch(tailOpened(JSON.parse(filtersKey)));
  }, [dispatch, filtersKey]);
  useEffect(() => () => void dispatch(tailClosed()), [dispatch]);

  const tail = useAppSelector((state) => state.logsTail);
  const pages = useLogsInfiniteQuery(filters, whenOpened);
  const size = useLogSizeQuery(undefined, whenOpened);
  const instances = useInstancesQuery({ page: 1, pageSize: 200 }, { skip: !!fixedInstance });
  const instanceNames = useMemo(() => new Map((instances.data?.items ?? []).map((i) => [i.id, i.name])), [instances.data]);

  const { rows, arrivedLive } = useMemo(() => {
    const loaded = pages.data?.pages.flatMap((page) => page.items) ?? [];
    const seen = new Set(loaded.map((entry) => entry.id));
    const live = tail.shown.filter((entry) => !seen.has(entry.id));
    return { rows: [...live, ...loaded], arrivedLive: live.length };
  }, [pages.data, tail.shown]);
  const firstPage = pages.data?.pages[0];

  const [selected, setSelected] = useState<LogEntry | null>(null);
  const select = (entry: LogEntry | null) => {
    setSelected(entry);
    dispatch(entry ? tailHeld('selection') : tailReleased('selection'));
  };
  const onAway = useCallback((away: boolean) => dispatch(away ? tailHeld('scrolled') : tailReleased('scrolled')), [dispatch]);
  const onPointer = useCallback((over: boolean) => dispatch(over ? tailHeld('hover') : tailReleased('hover')), [dispatch]);
  const { fetchNextPage } = pages;
  const onLoadMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);

  const levels = url.level ? url.level.split(',') : [];
  const toggleLevel = (level: LogLevel, on: boolean) => {
    const next = logLevels.filter((l) => (l === level ? on : levels.includes(l)));
    list.setFilter('level', next.length > 0 && next.length < logLevels.length ? next.join(',') : undefined);
  };
  const range = url.range ?? defaultRange;
  const setRange = (value: string) => {
    list.setFilter('range', value === defaultRange ? undefined : value);
  };
  const zoom = (from: string, to: string) => {
    list.setFilter('range', 'custom');
    list.setFilter('from', from);
    list.setFilter('to', to);
  };
  const histogramTo = filters.to ?? new Date(anchor).toISOString();
  const histogramFrom = filters.from ?? size.data?.oldest ?? new Date(anchor - 86_400_000).toISOString();

  const exportHref = (format: 'ndjson' | 'csv') => `${apiUrl}/logs/export?${filterQuery({ ...filters, format })}`;

  const canClear = isAdmin || !!filters.instanceId;
  const requestClear = () => {
    const before = filters.to ?? new Date().toISOString();
    const onlyLevel = levels.length === 1 ? levels[0] : undefined;
    const whose =
      filters.instanceId === 'none'
        ? 'the control plane'
        : filters.instanceId
          ? `instance ${instanceNames.get(filters.instanceId) ?? filters.instanceId}`
          : 'every instance and the control plane';
    const description =
      `This removes every ${onlyLevel ? `${levelLooks[onlyLevel as LogLevel].label.toLowerCase()} ` : ''}entry of ${whose} ` +
      `written before ${new Date(before).toLocaleString()}` +
      (levels.length > 1 || url.handler || url.search ? ', whatever its handler or text (the other filters do not apply).' : '.');
    dispatch(clearLogsRequested({ args: { ...(filters.instanceId && { instanceId: filters.instanceId }), before, ...(onlyLevel && { level: onlyLevel }) }, description }));
  };

  return (
    <Stack gap="4">
      <Wrap gap="4" align="end">
        <SearchInput label="Search logs" value={list.params.search ?? ''} onChange={list.setSearch} />
        {!fixedInstance && (
          <SelectField
            label="Instance"
            width="56"
            value={url.instanceId ?? ''}
            options={[
              { value: '', label: 'All instances' },
              ...(isAdmin ? [{ value: 'none', label: 'Control plane' }] : []),
              ...(instances.data?.items ?? []).map((i) => ({ value: i.id, label: i.name })),
            ]}
            onChange={(value) => list.setFilter('instanceId', value || undefined)}
          />
        )}
        <Field.Root w="40">
          <Field.Label>Handler</Field.Label>
          <Input
            key={url.handler ?? ''}
            defaultValue={url.handler ?? ''}
            placeholder="e.g. postgres"
            onBlur={(event) => list.setFilter('handler', event.target.value.trim() || undefined)}
            onKeyDown={(event) => event.key === 'Enter' && list.setFilter('handler', event.currentTarget.value.trim() || undefined)}
          />
        </Field.Root>
        <SelectField
          label="Time range"
          width="48"
          value={range}
          options={[...quickRanges.map((r) => ({ value: r.value, label: r.label })), { value: 'custom', label: 'Custom…' }]}
          onChange={setRange}
        />
        {range === 'custom' && (
          <>
            <Field.Root w="52">
              <Field.Label>From</Field.Label>
              <Input type="datetime-local" value={toLocalInput(url.from)} onChange={(e) => list.setFilter('from', fromLocalInput(e.target.value))} />
            </Field.Root>
            <Field.Root w="52">
              <Field.Label>To</Field.Label>
              <Input type="datetime-local" value={toLocalInput(url.to)} onChange={(e) => list.setFilter('to', fromLocalInput(e.target.value))} />
            </Field.Root>
          </>
        )}
      </Wrap>
      <HStack as="fieldset" gap="4" wrap="wrap">
        <Text as="legend" fontWeight="medium" mb="1">
          Levels
        </Text>
        {logLevels.map((level) => (
          <Checkbox.Root key={level} size="sm" checked={levels.includes(level)} onCheckedChange={(d) => toggleLevel(level, d.checked === true)}>
            <Checkbox.HiddenInput />
            <Checkbox.Control />
            <Checkbox.Label>{levelLooks[level].label}</Checkbox.Label>
          </Checkbox.Root>
        ))}
      </HStack>

      <Suspense fallback={<Box h="16" />}>
        <LogHistogram filters={{ ...filters, from: undefined, to: undefined }} from={histogramFrom} to={histogramTo} onZoom={zoom} />
      </Suspense>

      <HStack justify="space-between" wrap="wrap" gap="3">
        <Switch.Root checked={tail.live} onCheckedChange={(d) => dispatch(liveToggled(d.checked))}>
          <Switch.HiddenInput />
          <Switch.Control />
          <Switch.Label>Live tail{tail.live && tail.holds.length > 0 ? ' (paused)' : ''}</Switch.Label>
        </Switch.Root>
        <HStack gap="2" wrap="wrap">
          <Button asChild size="sm" variant="outline">
            <a href={exportHref('ndjson')} download>
              Export NDJSON
            </a>
          </Button>
          <Button asChild size="sm" variant="outline">
            <a href={exportHref('csv')} download>
              Export CSV
            </a>
          </Button>
          {canClear && (
            <Button size="sm" variant="outline" colorPalette="red" onClick={requestClear}>
              Clear…
            </Button>
          )}
        </HStack>
      </HStack>

      {pages.isLoading ? (
        <LoadingState label="Loading log entries…" />
      ) : pages.isError && !pages.data ? (
        <ErrorState title="Could not load the log." onRetry={pages.refetch} />
      ) : rows.length === 0 ? (
        <EmptyState title="No entries match these filters." description="Widen the time range or the levels, or wait for new entries." />
      ) : (
        <LogTable
          rows={rows}
          instanceNames={instanceNames}
          showInstance={!fixedInstance}
          selectedId={selected?.id ?? null}
          onSelect={select}
          heldCount={tail.held.length}
          hasMore={!!pages.hasNextPage}
          loadingMore={pages.isFetchingNextPage}
          onLoadMore={onLoadMore}
          onAway={onAway}
          onPointer={onPointer}
        />
      )}

      <HStack as="footer" justify="space-between" color="fg.muted" fontSize="sm" wrap="wrap">
        <Text>
          {/* The server counted what it had when asked; what arrived live since adds to that. */}
          {firstPage ? matchingText(firstPage.total + arrivedLive, firstPage.totalExact) : ''}
          {arrivedLive > 0 ? `, ${arrivedLive} of them arrived live` : ''}
        </Text>
        {size.data && (
          <Text>
            Log store{isAdmin ? '' : ' (your instances)'}: {size.data.entries.toLocaleString()} entries, {formatBytes(size.data.bytes)}
          </Text>
        )}
      </HStack>

      {selected && (
        <Suspense fallback={null}>
          <LogDrawer entry={selected} instanceName={selected.instanceId ? instanceNames.get(selected.instanceId) : undefined} onClose={() => select(null)} />
        </Suspense>
      )}
    </Stack>
  );
}
