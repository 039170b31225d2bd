import { Code } from '@chakra-ui/react';
import { DataTable, type Column } from '../../components/DataTable';
import { formatDateTime } from '../../components/DateTime';
import { Section } from '../../components/Section';
import { useAppSelector } from '../../app/hooks';
import { recentEventsKept, type ReceivedEvent } from '../realtime/realtimeSlice';
import { selectRecentEvents } from '../realtime/selectors';

const eventColumns: Column<ReceivedEvent>[] = [
  {
    key: 'at',
    header: 'Time',
    // To the second: events come in bursts.
    cell: (event) => <time dateTime={event.at}>{formatDateTime(event.at, { seconds: true })}</time>,
  },
  { key: 'name', header: 'Event', cell: (event) => event.name },
  {
    key: 'payload',
    header: 'Payload',
    cell: (event) => (
      <Code variant="plain" whiteSpace="pre-wrap" wordBreak="break-all">
        {JSON.stringify(event.payload)}
      </Code>
    ),
  },
];

/** The newest events the hub pushed to this browser, newest first. */
export function RecentEventsSection() {
  const events = useAppSelector(selectRecentEvents);
  // Events carry no id; their rows hold no state, so the position is key enough.
  const keys = new Map(events.map((event, index) => [event, String(index)]));
  return (
    <Section title={`Last ${recentEventsKept} events`}>
      <DataTable
        label="Received events"
        columns={eventColumns}
        rows={events}
        rowKey={(event) => keys.get(event)!}
        loading={false}
        emptyText="No events received yet."
      />
    </Section>
  );
}
