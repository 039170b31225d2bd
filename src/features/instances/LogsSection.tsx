import { Badge, Box, Button, HStack, Stack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import type { LogEntry } from '../../../contracts/logs';
import { logLevels, type LogLevel } from '../../../contracts/logLevels';
import { formatDateTime } from '../../components/DateTime';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { SearchInput } from '../../components/SearchInput';
import { Section } from '../../components/Section';
import { SelectField } from '../../components/SelectField';
import { useHubGroup } from '../realtime/useHubGroup';
import { useInstanceLogsQuery, useLogHandlersQuery, type InstanceLogsArgs } from './instancesApi';

const pageSize = 50;

const looks: Record<LogLevel, { label: string; palette: string; text?: string }> = {
  verbose: { label: 'Verbose', palette: 'gray' },
  debug: { label: 'Debug', palette: 'gray' },
  information: { label: 'Info', palette: 'blue' },
  warning: { label: 'Warning', palette: 'orange', text: 'fg.warning' },
  error: { label: 'Error', palette: 'red', text: 'fg.error' },
  fatal: { label: 'Fatal', palette: 'purple', text: 'fg.error' },
};

const levelOptions = [
  { value: '', label: 'All levels' },
  ...logLevels.slice(1).map((level) => ({ value: level, label: `${looks[level].label} and above` })),
];

const pad = (n: number) => String(n).padStart(2, '0');
const logTime = (iso: string) => `${formatDateTime(iso)}:${pad(new Date(iso).getSeconds())}`;

function LogLine({ entry }: { entry: LogEntry }) {
  const look = looks[entry.level];
  return (
    <HStack as="li" data-level={entry.level} gap="3" align="baseline" py="1" borderBottomWidth="1px" fontFamily="mono" fontSize="xs">
      <Text asChild color="fg.muted" whiteSpace="nowrap">
        <time dateTime={entry.timestamp}>{logTime(entry.timestamp)}</time>
      </Text>
      <Badge colorPalette={look.palette} variant="subtle" minW="16" justifyContent="center">
        {look.label}
      </Badge>
      <Text as="span" color="fg.muted" minW="16">
        {entry.handler}
      </Text>
      <Text as="span" color={look.text} whiteSpace="pre-wrap" wordBreak="break-word">
        {entry.message}
      </Text>
    </HStack>
  );
}

/**
 * One page of entries, then the next older page on demand. Each page starts where the page before
 * it ends (its nextCursor), so pages never overlap while new lines arrive at the top.
 */
function LogPage({ args, cursor }: { args: InstanceLogsArgs; cursor?: number }) {
  const page = useInstanceLogsQuery(cursor === undefined ? args : { ...args, cursor });
  const [older, setOlder] = useState(false);

  if (page.isLoading) return <li><LoadingState label="Loading log entries…" /></li>;
  if (!page.data) return <li><ErrorState title="Could not load the log." onRetry={page.refetch} /></li>;
  const filtered = !!(args.levels || args.handler || args.search);
  if (cursor === undefined && page.data.items.length === 0) {
    return <li><EmptyState title={filtered ? 'No log entries match.' : 'No log entries yet.'} /></li>;
  }

  const { items, nextCursor } = page.data;
  return (
    <>
      {items.map((entry) => (
        <LogLine key={entry.id} entry={entry} />
      ))}
      {nextCursor !== null &&
        (older ? (
          <LogPage args={args} cursor={nextCursor} />
        ) : (
          <Box as="li" pt="2">
            <Button size="xs" variant="outline" onClick={() => setOlder(true)}>
              Load older
            </Button>
          </Box>
        ))}
    </>
  );
}

/** The instance's newest log entries, live: new lines arrive at the top while the section is shown. */
export function LogsSection({ instanceId }: { instanceId: string }) {
  useHubGroup('Logs', instanceId);
  const [lowest, setLowest] = useState<LogLevel | ''>('');
  const [handler, setHandler] = useState('');
  const [search, setSearch] = useState('');
  const { data: handlers = [] } = useLogHandlersQuery(instanceId);

  const args: InstanceLogsArgs = {
    id: instanceId,
    limit: pageSize,
    ...(lowest && { levels: logLevels.slice(logLevels.indexOf(lowest)).join(',') }),
    ...(handler && { handler }),
    ...(search.trim() && { search: search.trim() }),
  };

  return (
    <Section title="Recent logs" description="Newest first; new entries appear as they are written.">
      <HStack gap="4" align="end" wrap="wrap">
        <SearchInput label="Search logs" value={search} onChange={setSearch} />
        <SelectField
          label="Level"
          width="44"
          value={lowest}
          options={levelOptions}
          onChange={(value) => setLowest(value as LogLevel | '')}
        />
        <SelectField
          label="Source"
          width="44"
          value={handler}
          options={[{ value: '', label: 'All sources' }, ...handlers.map((name) => ({ value: name, label: name }))]}
          onChange={setHandler}
        />
      </HStack>
      <Stack as="ol" aria-label="Log entries" listStyleType="none" gap="0" maxH="md" overflowY="auto">
        {/* Keyed by the filters: other filters start again from the newest page. */}
        <LogPage key={JSON.stringify(args)} args={args} />
      </Stack>
    </Section>
  );
}
