import fc from 'fast-check';
import { parseEtcdScript } from '../../../server/scripts/etcdScript';
import { sqlSegments, splitSql } from '../../../server/scripts/sqlSplitter';

// The statement splitter follows PostgreSQL's lexical rules: a `;` inside a string, a quoted
// identifier, a dollar-quoted body, a comment or a BEGIN ATOMIC body does not end a statement.

const texts = (script: string) => splitSql(script).map((s) => s.text);

describe('splitting SQL into statements', () => {
  it('cuts at semicolons and keeps each statement with its line', () => {
    const script = 'select 1;\n\n  insert into t values (1);\nselect\n  2';
    expect(splitSql(script)).toEqual([
      { text: 'select 1', start: 0, end: 8, line: 1 },
      { text: 'insert into t values (1)', start: 13, end: 37, line: 3 },
      { text: 'select\n  2', start: 39, end: 49, line: 4 },
    ]);
  });

  it('keeps semicolons in strings, escaped strings, quoted identifiers and dollar quotes', () => {
    expect(texts("select 'a;b', 'it''s;';select 2")).toEqual(["select 'a;b', 'it''s;'", 'select 2']);
    expect(texts("select E'a\\';b';select 2")).toEqual(["select E'a\\';b'", 'select 2']);
    expect(texts('select 1 as "x;y""z";select 2')).toEqual(['select 1 as "x;y""z"', 'select 2']);
    const body = 'create function f() returns int language plpgsql as $body$ begin perform 1; return 2; end $body$';
    expect(texts(`${body};select f()`)).toEqual([body, 'select f()']);
    expect(texts('select $$a;$x$;$$;select 2')).toEqual(['select $$a;$x$;$$', 'select 2']);
  });

  it('does not read a backslash as an escape in a standard string', () => {
    expect(texts("select 'a\\';select 2")).toEqual(["select 'a\\'", 'select 2']);
  });

  it('skips comments, nested block comments included, and leaves out comment-only parts', () => {
    const script = '-- first; not a statement\nselect 1 /* a; /* nested; */ still; */ ;\n/* only a comment; */\n-- trailing;';
    expect(texts(script)).toEqual(['select 1 /* a; /* nested; */ still; */']);
    expect(splitSql(script)[0].line).toBe(2);
  });

  it('keeps a SQL-standard function body (BEGIN ATOMIC … END) whole', () => {
    const body = 'create or replace function g() returns int language sql begin atomic select 1; select case when true then 2 end; end';
    expect(texts(`${body};select g()`)).toEqual([body, 'select g()']);
    expect(texts('begin; select 1; end;')).toEqual(['begin', 'select 1', 'end']);
  });

  it('does not take $1 or a $ inside a word for a dollar quote', () => {
    expect(texts('prepare p as select $1;select a$b$ from t;select 3')).toEqual(['prepare p as select $1', 'select a$b$ from t', 'select 3']);
  });

  it('loses nothing: the segments joined are the script, and every statement is the script at its offsets', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab \n;\'"$-/*E\\x'.split('')), maxLength: 80 }), (script) => {
        expect(sqlSegments(script).map((s) => s.raw).join('')).toBe(script);
        for (const statement of splitSql(script)) expect(script.slice(statement.start, statement.end)).toBe(statement.text);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps statements whole whatever semicolons their strings, identifiers, comments and bodies hold', () => {
    const piece = fc.constantFrom(
      'select 1',
      "select 'a;b'",
      "select E'x\\';y'",
      'select 1 as "q;q"',
      'select $$;$$',
      'select $t$ ; $$ ; $t$',
      'select 1 /* ; /* ; */ ; */',
      'select 1 -- ;\n + 1',
      "insert into t values ('it''s;')",
      'create function f() returns int language sql begin atomic select 1; end',
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), fc.constantFrom(';', ';\n', ' ;\n\n'), (statements, separator) => {
        expect(texts(statements.join(separator))).toEqual(statements);
      }),
      { numRuns: 500 },
    );
  });
});

describe('reading an etcd script', () => {
  it('takes one command a line, skipping blanks and # comments, with quoted keys and values', () => {
    const commands = parseEtcdScript('# seed\nput a 1\n\nput "b c" "x \\" y"\nput d rest of the line\nget --prefix a\ndel --prefix ""\nget a');
    expect(commands.map((c) => [c.line, c.verb, c.args])).toEqual([
      [2, 'PUT', ['put', '--', 'a', '1']],
      [4, 'PUT', ['put', '--', 'b c', 'x " y']],
      [5, 'PUT', ['put', '--', 'd', 'rest of the line']],
      [6, 'GET', ['get', '--prefix', '--limit=1000', '--', 'a']],
      [7, 'DEL', ['del', '--prefix', '--', '']],
      [8, 'GET', ['get', '--limit=1000', '--', 'a']],
    ]);
  });

  it('says why a line is not a command', () => {
    const [unknown, noKey, open] = parseEtcdScript('watch a\nget\nput "a b');
    expect(unknown.args).toEqual({ problem: expect.stringMatching(/unknown command watch/) });
    expect(noKey.args).toEqual({ problem: 'get needs a key' });
    expect(open.args).toEqual({ problem: 'a quoted string is not closed' });
  });
});
