import { CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { PostgreSQL, schemaCompletionSource, sql } from '@codemirror/lang-sql';
import { EditorState } from '@codemirror/state';
import { completionSchema } from '../../../../src/features/scripts/completionSchema';

const read = [
  {
    schema: 'public',
    name: 'orders',
    columns: [
      { name: 'id', type: 'int4' },
      { name: 'Placed At', type: 'timestamptz' },
    ],
  },
  { schema: 'audit', name: 'events', columns: [{ name: 'at', type: 'timestamptz' }] },
];

/** What the editor offers with the cursor at the end of `doc`, as the script editor configures lang-sql. */
async function offered(doc: string, schema = completionSchema([], read)) {
  const config = { dialect: PostgreSQL, schema, defaultSchema: 'public' };
  const state = EditorState.create({ doc, extensions: [sql(config)] });
  const result = (await schemaCompletionSource(config)(new CompletionContext(state, doc.length, true))) as CompletionResult | null;
  return result?.options.map((option) => [option.label, option.detail ?? null, option.apply ?? option.label]) ?? [];
}

describe('completionSchema', () => {
  it('nests the names known without columns by schema; unqualified ones are public', () => {
    expect(completionSchema(['public.orders', 'audit.events', 'items', 'public.orders'])).toEqual({
      public: { orders: [], items: [] },
      audit: { events: [] },
    });
  });

  it('gives the tables read from the instance their columns with types, beside the names known otherwise', () => {
    expect(completionSchema(['public.orders', 'items', 'public.fresh'], read)).toEqual({
      public: {
        orders: [
          { label: 'id', apply: 'id', type: 'property', detail: 'int4' },
          { label: 'Placed At', apply: '"Placed At"', type: 'property', detail: 'timestamptz' },
        ],
        items: [],
        fresh: [],
      },
      audit: { events: [{ label: 'at', apply: 'at', type: 'property', detail: 'timestamptz' }] },
    });
  });

  it('makes the editor offer a table’s columns after its name, quoted where SQL needs it', async () => {
    expect(await offered('select orders.')).toEqual([
      ['id', 'int4', 'id'],
      ['Placed At', 'timestamptz', '"Placed At"'],
    ]);
    expect(await offered('select audit.events.')).toEqual([['at', 'timestamptz', 'at']]);
  });

  it('offers the tables themselves, public ones unqualified', async () => {
    const labels = (await offered('select * from ')).map(([label]) => label);
    expect(labels).toEqual(expect.arrayContaining(['orders', 'audit']));
  });
});
