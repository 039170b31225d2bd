// Paging limits (DESIGN §6) in a module without TypeBox, so the browser may import them as values.
export const maxPageSize = 200;
export const defaultPageSize = 25;
// Pages past this are refused: a larger offset is never a real list, and 1e309 parses as Infinity.
export const maxPage = 1_000_000;
