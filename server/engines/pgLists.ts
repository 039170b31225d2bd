// PostgreSQL's list parameters whose elements ALTER SYSTEM quotes one by one (GUC_LIST_QUOTE):
// search_path, temp_tablespaces and the preload libraries. A value is read into its elements as
// PostgreSQL reads it, and written back in the form ALTER SYSTEM writes, so `"$user", public`
// stays two elements instead of becoming one quoted name.

/** How PostgreSQL splits each: names (unquoted ones folded to lower case) or file names (kept as written). */
const quotedLists: ReadonlyMap<string, 'names' | 'files'> = new Map([
  ['search_path', 'names'],
  ['temp_tablespaces', 'names'],
  ['shared_preload_libraries', 'files'],
  ['session_preload_libraries', 'files'],
  ['local_preload_libraries', 'files'],
]);

export const isQuotedList = (name: string) => quotedLists.has(name);

const isSpace = (c: string | undefined) => c !== undefined && ' \t\n\r\f\v'.includes(c);

/**
 * The elements of a list parameter's value as PostgreSQL reads them (SplitIdentifierString for
 * names, SplitDirectoriesString for files), or null when the value is no list. An empty value is
 * an empty list; an element may not be empty.
 */
export function listElements(name: string, value: string): string[] | null {
  const kind = quotedLists.get(name);
  if (!kind) return null;
  const elements: string[] = [];
  let i = 0;
  const skipSpaces = () => {
    while (isSpace(value[i])) i++;
  };
  skipSpaces();
  if (i === value.length) return elements;
  for (;;) {
    let element = '';
    if (value[i] === '"') {
      // Quoted: kept as written, "" standing for one quote.
      for (i++; ; i++) {
        if (i >= value.length) return null;
        if (value[i] === '"') {
          if (value[i + 1] !== '"') break;
          i++;
        }
        element += value[i];
      }
      i++;
    } else {
      const start = i;
      // Unquoted: a name ends at a space, a file name at the comma (trailing spaces dropped).
      while (i < value.length && value[i] !== ',' && (kind === 'files' || !isSpace(value[i]))) i++;
      element = value.slice(start, i).trimEnd();
      if (kind === 'names') element = element.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
    }
    if (element === '') return null;
    elements.push(element);
    skipSpaces();
    if (i === value.length) return elements;
    if (value[i] !== ',') return null;
    i++;
    skipSpaces();
  }
}

/**
 * An element as ALTER SYSTEM writes it into a list (quote_identifier): bare when it is a plain
 * lower-case name, else double-quoted. PostgreSQL also quotes its reserved words; a list reads them
 * the same either way.
 */
const quoteElement = (element: string) => (/^[a-z_][a-z0-9_]*$/.test(element) ? element : `"${element.replace(/"/g, '""')}"`);

/** A list's elements as one value, as ALTER SYSTEM writes it: `"$user", public`. */
export const listValue = (elements: string[]) => elements.map(quoteElement).join(', ');

/** A value as ALTER SYSTEM saves it: a list's elements quoted one by one, any other value as given. */
export function savedForm(name: string, value: string): string {
  const elements = listElements(name, value);
  return elements ? listValue(elements) : value;
}
