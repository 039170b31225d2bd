import { Button, chakra } from '@chakra-ui/react';
import type { OutboxMessage } from '../../../contracts/users';
import type { Column } from '../../components/DataTable';
import { PagedTable } from '../../components/PagedTable';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/Section';
import { useListParams } from '../../components/useListParams';
import { useOutboxQuery } from './debugApi';

const deliveryOf = (message: OutboxMessage) =>
  message.sent ? 'Sent' : message.error ? `Failed: ${message.error}` : 'Not sent';

const outboxColumns: Column<OutboxMessage>[] = [
  { key: 'at', header: 'Time', cell: (message) => <DateTime value={message.at} /> },
  { key: 'to', header: 'To', cell: (message) => message.to },
  { key: 'subject', header: 'Subject', cell: (message) => message.subject },
  { key: 'delivery', header: 'Delivery', cell: deliveryOf },
  {
    key: 'text',
    header: 'Message',
    // The text holds the links (confirm e-mail, reset password) an admin may have to pass on.
    cell: (message) => (
      <chakra.details>
        <chakra.summary cursor="pointer">Show</chakra.summary>
        <chakra.pre whiteSpace="pre-wrap" wordBreak="break-word" fontSize="sm" mt="2">
          {message.text}
        </chakra.pre>
      </chakra.details>
    ),
  },
];

/** The e-mails the server kept (GET /admin/outbox), paged in the URL as outboxPage/outboxPageSize. */
export function OutboxSection() {
  const list = useListParams({ prefix: 'outbox' });
  const outbox = useOutboxQuery({ page: list.params.page, pageSize: list.params.pageSize }, { refetchOnMountOrArgChange: true });

  return (
    <Section
      title="E-mail outbox"
      actions={
        <Button size="sm" variant="outline" aria-label="Refresh outbox" loading={outbox.isFetching} onClick={() => outbox.refetch()}>
          Refresh
        </Button>
      }
    >
      <PagedTable
        label="E-mail outbox"
        columns={outboxColumns}
        rowKey={(message) => message.id}
        emptyText="No e-mail has been sent yet."
        query={outbox}
        list={list}
        sortable={false}
        pagerLabel="Outbox pages"
      />
    </Section>
  );
}
