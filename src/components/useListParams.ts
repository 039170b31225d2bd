import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useLocation, useSearchParams } from 'react-router-dom';

import { defaultPageSize, maxPageSize } from '../../contracts/pageLimits';

/** A paged list's state as the API takes it (DESIGN §10): page from 1, pageSize, sort (`field` or `-field`), search. */
export interface ListParams {
  page: number;
  pageSize: number;
  sort?: string;
  search?: string;
}

type Value = string | number | undefined;

function positiveInt(raw: string | null, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= max ? n : fallback;
}

/**
 * A server-side list's page, sort, search and filters, kept in the URL query (DESIGN §9), so
 * a reload, a shared link or Back shows the same rows. `prefix` keeps two lists of one screen
 * apart (`membersPage`, `instancesPage`). Changing anything but the page goes back to page 1;
 * typing a search replaces the history entry instead of adding one per pause.
 */
export function useListParams<Filter extends string = never>({
  prefix = '',
  filters = [],
}: { prefix?: string; filters?: readonly Filter[] } = {}) {
  const [searchParams, setSearchParams] = useSearchParams();
  const key = useCallback((name: string) => (prefix ? `${prefix}${name[0].toUpperCase()}${name.slice(1)}` : name), [prefix]);

  const query = searchParams.toString();
  const filterNames = filters.join(',');
  const { params, filterValues } = useMemo(() => {
    const read = new URLSearchParams(query);
    const text = (name: string) => read.get(key(name)) || undefined;
    return {
      params: {
        page: positiveInt(read.get(key('page')), 1),
        pageSize: positiveInt(read.get(key('pageSize')), defaultPageSize, maxPageSize),
        sort: text('sort'),
        search: text('search'),
      } satisfies ListParams,
      filterValues: Object.fromEntries(
        (filterNames ? filterNames.split(',') : []).map((name) => [name, text(name)]),
      ) as Partial<Record<Filter, string>>,
    };
  }, [query, key, filterNames]);

  // setSearchParams starts from the query of the last render. Two changes before the next
  // render (while the route's loaders run) would lose the first, so the newest query asked
  // for is kept until a render shows it.
  const pending = useRef<string | null>(null);
  useEffect(() => {
    pending.current = null;
  }, [query]);

  const patched = useCallback(
    (base: string, patch: Record<string, Value>) => {
      const next = new URLSearchParams(base);
      // Defaults stay out of the URL, so a plain list has a plain address.
      for (const [name, value] of Object.entries(patch)) {
        const isDefault =
          value === undefined || value === '' || (name === 'page' && value === 1) || (name === 'pageSize' && value === defaultPageSize);
        if (isDefault) next.delete(key(name));
        else next.set(key(name), String(value));
      }
      if (!('page' in patch)) next.delete(key('page'));
      return next;
    },
    [key],
  );

  const update = useCallback(
    (patch: Record<string, Value>, replace = false) => {
      const next = patched(pending.current ?? query, patch);
      pending.current = next.toString();
      setSearchParams(next, { replace });
    },
    [setSearchParams, patched, query],
  );

  // The address of another page of this list, for a link to it.
  const { pathname } = useLocation();
  const pageHref = useCallback(
    (page: number) => {
      const next = patched(query, { page }).toString();
      return next ? `${pathname}?${next}` : pathname;
    },
    [patched, query, pathname],
  );

  // What the API takes: the list state and its filters, a search of spaces being none.
  const args = useMemo(
    () => ({ ...params, search: params.search?.trim() || undefined, ...filterValues }),
    [params, filterValues],
  );

  return {
    params,
    filters: filterValues,
    args,
    pageHref,
    setPage: useCallback((page: number) => update({ page }), [update]),
    setPageSize: useCallback((pageSize: number) => update({ pageSize }), [update]),
    setSort: useCallback((sort: string) => update({ sort }), [update]),
    setSearch: useCallback((search: string) => update({ search }, true), [update]),
    setFilter: useCallback((name: Filter, value: string | undefined) => update({ [name]: value }), [update]),
  };
}
