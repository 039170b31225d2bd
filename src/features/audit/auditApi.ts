import type { PageOf } from '../../../contracts/page';
import type { AuditEntry } from '../../../contracts/users';
import { baseApi } from '../../api/baseApi';

/** GET /admin/audit's query: a page, and the filters the server applies (server/routes/audit.ts). */
export interface AuditArgs {
  page: number;
  pageSize: number;
  userId?: string;
  /** Exactly, or as a dotted prefix: `user` finds `user.create` and `user.update`. */
  action?: string;
  /** Text the target contains, whatever its case. */
  target?: string;
  outcome?: 'success' | 'failure';
  /** Instants, from ≤ at < to. */
  from?: string;
  to?: string;
}

export const auditApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    // Read-only and newest first: what is cached ages out like every query (SPEC §9).
    auditEntries: build.query<PageOf<AuditEntry>, AuditArgs>({
      query: (params) => ({ url: '/admin/audit', params }),
    }),
  }),
});

export const { useAuditEntriesQuery } = auditApi;
