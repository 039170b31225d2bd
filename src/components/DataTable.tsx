import { Box, Button, Table } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { TableFrame } from '../features/ui/TableFrame';
import { EmptyState, ErrorState, LoadingState } from './ListStates';

export interface Column<Row> {
  key: string;
  header: string;
  cell: (row: Row) => ReactNode;
  /** The API's `sort` field for this column; columns without one cannot be sorted. */
  sortBy?: string;
  numeric?: boolean;
  /** Shown only to screen readers: for columns of row actions whose buttons say enough. */
  hiddenHeader?: boolean;
}

export interface DataTableProps<Row> {
  /** The table's accessible name, and the noun of its loading and failure messages. */
  label: string;
  columns: Column<Row>[];
  rows: Row[] | undefined;
  rowKey: (row: Row) => string;
  /** The current sort (`field` or `-field`) and how to change it; without onSort no header sorts. */
  sort?: string;
  onSort?: (sort: string) => void;
  /** True until the first answer; later fetches keep the old rows on screen (aria-busy). */
  loading: boolean;
  fetching?: boolean;
  failed?: boolean;
  onRetry?: () => void;
  /** What an empty list says, e.g. 'No users match.' */
  emptyText: string;
}

const arrows = { ascending: '▲', descending: '▼' } as const;

/** A server-sorted table with its loading, empty and failure states. */
export function DataTable<Row>({
  label,
  columns,
  rows,
  rowKey,
  sort,
  onSort,
  loading,
  fetching = false,
  failed = false,
  onRetry,
  emptyText,
}: DataTableProps<Row>) {
  if (loading) return <LoadingState label={`Loading ${label.toLowerCase()}…`} />;
  if (failed && !rows) return <ErrorState title={`Could not load ${label.toLowerCase()}.`} onRetry={onRetry} />;
  if (!rows || rows.length === 0) return <EmptyState title={emptyText} />;

  const sortedBy = sort?.replace(/^-/, '');
  const direction = sort?.startsWith('-') ? 'descending' : 'ascending';

  return (
    <TableFrame>
      {/* A refetch is told by aria-busy, not by dimming: text at 60 % opacity falls under 4.5:1 in the
          paler themes, and tables refetch whenever the hub says something changed. */}
      <Table.Root aria-label={label} aria-busy={fetching} size="sm">
        <Table.Header>
          <Table.Row>
            {columns.map((column) => {
              const sorted = column.sortBy !== undefined && column.sortBy === sortedBy;
              return (
                <Table.ColumnHeader
                  key={column.key}
                  textAlign={column.numeric ? 'end' : 'start'}
                  aria-sort={sorted ? direction : undefined}
                >
                  {column.hiddenHeader ? (
                    <Box srOnly>{column.header}</Box>
                  ) : column.sortBy && onSort ? (
                    <Button
                      variant="plain"
                      size="sm"
                      px="0"
                      fontWeight="semibold"
                      onClick={() => onSort(sorted && direction === 'ascending' ? `-${column.sortBy}` : column.sortBy!)}
                    >
                      {column.header}
                      <Box as="span" aria-hidden="true" fontSize="xs" w="3">
                        {sorted ? arrows[direction] : ''}
                      </Box>
                    </Button>
                  ) : (
                    column.header
                  )}
                </Table.ColumnHeader>
              );
            })}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {rows.map((row) => (
            <Table.Row key={rowKey(row)}>
              {columns.map((column) => (
                <Table.Cell key={column.key} textAlign={column.numeric ? 'end' : 'start'}>
                  {column.cell(row)}
                </Table.Cell>
              ))}
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </TableFrame>
  );
}
