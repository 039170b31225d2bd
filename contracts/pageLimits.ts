// Paging limits (DESIGN §6) in a module without TypeBox, so the browser may import them as values.
export const maxPageSize = 200;
export const defaultPageSize = 25;
