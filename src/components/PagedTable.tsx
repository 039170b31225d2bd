import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { PageOf } from '../../contracts/page';
import { maxPage } from '../../contracts/pageLimits';
import { errorStatus, problemOf } from '../api/problemText';
import { DataTable, type DataTableProps } from './DataTable';
import { EmptyState } from './ListStates';
import { Pager } from './Pager';
import { TextLink } from './TextLink';
import type { ListParams } from './useListParams';

/** What PagedTable reads of an RTK Query result for one page of a list. */
export interface PageQuery<Row> {
  data?: PageOf<Row>;
  error?: FetchBaseQueryError | SerializedError;
  isLoading: boolean;
  isFetching: boolean;
  isError: boolean;
  refetch: () => unknown;
}

/** What PagedTable reads of useListParams: the page it shows and how to move. */
export interface PageControls {
  params: ListParams;
  pageHref: (page: number) => string;
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

/** The API refused the page number itself (a 400 naming `page`): no retry can help, another page can. */
function pageRefused(error: PageQuery<unknown>['error']): boolean {
  return errorStatus(error) === 400 && !!problemOf(error)?.errors?.page;
}

/** One server-paged list: the table with its loading, empty and failure states, and its pager. */
export function PagedTable<Row>({ query, list, sortable = true, pagerLabel, ...table }: PagedTableProps<Row>) {
  const { page } = list.params;
  const { data } = query;

  if (query.isError && pageRefused(query.error)) {
    return (
      <EmptyState title={`There is no page ${page}`} description={`Page numbers run from 1 to ${maxPage.toLocaleString('en-US')}.`}>
        <TextLink to={list.pageHref(1)}>Go to page 1</TextLink>
      </EmptyState>
    );
  }
  // The server answers a page past the end empty, with the list's real total.
  const lastPage = data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;
  if (data && data.items.length === 0 && page > lastPage) {
    return (
      <EmptyState title={`Page ${page} is past the end`} description={`The list has ${lastPage === 1 ? '1 page' : `${lastPage} pages`}.`}>
        <TextLink to={list.pageHref(lastPage)}>{lastPage === 1 ? 'Go to page 1' : `Go to page ${lastPage}, the last`}</TextLink>
      </EmptyState>
    );
  }

  return (
    <>
      <DataTable
        {...table}
        rows={data?.items}
        sort={sortable ? list.params.sort : undefined}
        onSort={sortable ? list.setSort : undefined}
        loading={query.isLoading}
        fetching={query.isFetching}
        failed={query.isError}
        onRetry={() => void query.refetch()}
      />
      {data && data.total > 0 && (
        <Pager
          label={pagerLabel}
          page={page}
          pageSize={list.params.pageSize}
          total={data.total}
          onPageChange={list.setPage}
          onPageSizeChange={list.setPageSize}
        />
      )}
    </>
  );
}
