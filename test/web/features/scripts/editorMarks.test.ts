import { Text } from '@codemirror/state';
import { errorMarks, markRange } from '../../../../src/features/scripts/editorMarks';
import { aResult } from '../../handlers/scriptsHandlers';

const script = 'select 1;\n\nselect nope\n  from orders; select 2;\ninsert into t values (1);';
const doc = Text.of(script.split('\n'));

describe('errorMarks', () => {
  it('marks only the failed statements, the SQLSTATE before the message', () => {
    const results = [
      aResult({ statement: 'select 1;', line: 1 }),
      aResult({ statement: 'select nope\n  from orders;', line: 3, error: { message: 'column "nope" does not exist', code: '42703', position: 8, line: 3 } }),
      aResult({ statement: 'insert into t values (1);', line: 5, error: { message: 'relation "t" does not exist' } }),
    ];
    expect(errorMarks(results)).toEqual([
      { line: 3, statement: 'select nope\n  from orders;', position: 8, errorLine: 3, message: '42703: column "nope" does not exist' },
      { line: 5, statement: 'insert into t values (1);', position: undefined, errorLine: undefined, message: 'relation "t" does not exist' },
    ]);
  });
});

describe('markRange', () => {
  const text = (range: { from: number; to: number } | null) => (range ? script.slice(range.from, range.to) : null);

  it('underlines the word at the error position within the statement', () => {
    expect(text(markRange(doc, { line: 3, statement: 'select nope\n  from orders;', position: 8, message: '' }))).toBe('nope');
    // A position on the statement's second line.
    expect(text(markRange(doc, { line: 3, statement: 'select nope\n  from orders;', position: 20, errorLine: 4, message: '' }))).toBe('orders');
  });

  it('finds a statement that starts after another on its line', () => {
    expect(text(markRange(doc, { line: 4, statement: 'select 2;', position: 8, message: '' }))).toBe('2');
  });

  it('falls back to the error’s line without a position, or when the statement is no longer there', () => {
    expect(text(markRange(doc, { line: 5, statement: 'insert into t values (1);', message: '' }))).toBe('insert into t values (1);');
    expect(text(markRange(doc, { line: 3, statement: 'select gone;', position: 3, errorLine: 3, message: '' }))).toBe('select nope');
  });

  it('drops a mark whose line the document no longer has', () => {
    expect(markRange(doc, { line: 9, statement: 'select 9;', message: '' })).toBeNull();
    expect(markRange(doc, { line: 1, statement: 'select 1;', errorLine: 12, message: '' })).toBeNull();
  });
});
