import type { PageOf } from '../../contracts/page';
import { DataTable, type DataTableProps } from './DataTable';
import { Pager } from './Pager';
import type { ListParams } from './useListParams';

/** What PagedTable reads of an RTK Query result for one page of a list. */
export interface PageQuery<Row> {
  data?: PageOf<Row>;
  isLoading: boolean;
  isFetching: boolean;
  isError: boolean;
  refetch: () => unknown;
}

/** What PagedTable reads of useListParams: the page it shows and how to move. */
export interface PageControls {
  params: ListParams;
  setPage: (page: number) => void;
  setPageSize: (pageSize: number) => void;
  setSort?: (sort: string) => void;
}

interface PagedTableProps<Row> extends Pick<DataTableProps<Row>, 'label' | 'columns' | 'rowKey' | 'emptyText'> {
  query: PageQuery<Row>;
  list: PageControls;
  /** Headers sort through list.setSort unless false (a list the server does not sort). */
  sortable?: boolean;
  pagerLabel?: string;
}

/** One server-paged list: the table with its loading, empty and failure states, and its pager. */
export function PagedTable<Row>({ query, list, sortable = true, pagerLabel, ...table }: PagedTableProps<Row>) {
  return (
    <>
      <DataTable
        {...table}
        rows={query.data?.items}
        sort={sortable ? list.params.sort : undefined}
        onSort={sortable ? list.setSort : undefined}
        loading={query.isLoading}
        fetching={query.isFetching}
        failed={query.isError}
        onRetry={() => void query.refetch()}
      />
      {query.data && query.data.total > 0 && (
        <Pager
          label={pagerLabel}
          page={list.params.page}
          pageSize={list.params.pageSize}
          total={query.data.total}
          onPageChange={list.setPage}
          onPageSizeChange={list.setPageSize}
        />
      )}
    </>
  );
}
