import { Button, chakra } from '@chakra-ui/react';
import type { OutboxMessage } from '../../../contracts/users';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Pager } from '../../components/Pager';
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
  const { params, setPage, setPageSize } = useListParams({ prefix: 'outbox' });
  const outbox = useOutboxQuery({ page: params.page, pageSize: params.pageSize }, { refetchOnMountOrArgChange: true });

  return (
    <Section
      title="E-mail outbox"
      actions={
        <Button size="sm" variant="outline" aria-label="Refresh outbox" loading={outbox.isFetching} onClick={() => outbox.refetch()}>
          Refresh
        </Button>
      }
    >
      <DataTable
        label="E-mail outbox"
        columns={outboxColumns}
        rows={outbox.data?.items}
        rowKey={(message) => message.id}
        loading={outbox.isLoading}
        fetching={outbox.isFetching}
        failed={outbox.isError}
        onRetry={() => outbox.refetch()}
        emptyText="No e-mail has been sent yet."
      />
      {outbox.data && outbox.data.total > 0 && (
        <Pager
          label="Outbox pages"
          page={params.page}
          pageSize={params.pageSize}
          total={outbox.data.total}
          onPageChange={setPage}
          onPageSizeChange={setPageSize}
        />
      )}
    </Section>
  );
}
