import type { SQLNamespace } from '@codemirror/lang-sql';
import type { ScriptSchema } from '../../../contracts/scripts';

/** A completion option as lang-sql takes one (its Completion, without naming the autocomplete package). */
type Completion = Exclude<Extract<SQLNamespace, readonly unknown[]>[number], string>;

/** A name as SQL must write it: plain lower-case identifiers as they are, any other double-quoted. */
const sqlName = (name: string) => (/^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`);

/** A column as completion offers it: its name, with its type beside it. */
const columnCompletion = ({ name, type }: ScriptSchema['tables'][number]['columns'][number]): Completion => ({
  label: name,
  apply: sqlName(name),
  type: 'property',
  detail: type,
});

/**
 * The nested `schema → table → columns` namespace lang-sql completes from: the instance's tables with
 * their columns as read from it, plus the tables only known by name (`schema.table`, unqualified ones
 * are public — from the newest backup and the run on show) without columns.
 */
export function completionSchema(names: readonly string[], read: ScriptSchema['tables'] = []): SQLNamespace {
  const schemas: Record<string, Record<string, Completion[]>> = {};
  for (const name of names) {
    const dot = name.indexOf('.');
    const [schema, table] = dot < 0 ? ['public', name] : [name.slice(0, dot), name.slice(dot + 1)];
    (schemas[schema] ??= {})[table] ??= [];
  }
  for (const { schema, name, columns } of read) (schemas[schema] ??= {})[name] = columns.map(columnCompletion);
  return schemas;
}
