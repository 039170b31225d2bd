import { Type, type Static, type TSchema } from 'typebox';
import { defaultPageSize, maxPage, maxPageSize } from './pageLimits';

// The one paging shape of the API (DESIGN §6, §10). A list with filters spreads
// PageQuery.properties into its own query object.
export { defaultPageSize, maxPage, maxPageSize };

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPage, default: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPageSize, default: defaultPageSize })),
  sort: Type.Optional(Type.String({ maxLength: 64 })),
  search: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });
export type PageQuery = Static<typeof PageQuery>;

export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), total: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer() });

export interface PageOf<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}
