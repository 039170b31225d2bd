import fc from 'fast-check';
import type { ConfigParameter } from '../../server/engines/engine';
import { memberRange, parameterPolicy, policyErrors } from '../../server/engines/parameterPolicy';
import { checkValue, confQuote, confUnquote } from '../../server/engines/parameterValues';
import { listElements, listValue, savedForm } from '../../server/engines/pgLists';

const host = { memoryBytes: 8 * 1024 ** 3 };
const pg = { units: true, host };
const param = (overrides: Partial<ConfigParameter>): ConfigParameter => ({
  name: 'x', value: '', default: null, type: 'integer', unit: null, min: null, max: null, enumValues: null, apply: 'reload', description: '',
  ...overrides,
});

describe('configuration file quoting', () => {
  it('reads back every value it writes, on one line', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', "'", '\\', ' ', 'n', 'é', '$', '"') }), (value) => {
        const quoted = confQuote(value);
        expect(quoted).not.toContain('\n');
        expect(confUnquote(quoted.slice(1, -1))).toBe(value);
      }),
    );
  });

  it("doubles quotes and backslashes as ALTER SYSTEM writes them", () => {
    expect(confQuote("it's C:\\x")).toBe("'it''s C:\\\\x'");
  });
});

describe('values', () => {
  const sharedBuffers = param({ name: 'shared_buffers', unit: '8kB', min: 16, max: 1073741823 });
  const timeout = param({ name: 'statement_timeout', unit: 'ms', min: 0, max: 2147483647 });

  it('converts units before checking bounds, as PostgreSQL does', () => {
    expect(checkValue(param({ name: 'n', unit: 'kB', min: 64, max: 2048 }), 'n', '1MB', pg)).toBeNull();
    expect(checkValue(param({ name: 'n', unit: 'kB', min: 64, max: 2048 }), 'n', '3MB', pg)).toBe('n must be at most 2048 kB.');
    expect(checkValue(param({ name: 'n', unit: 'kB', min: 64, max: 2048 }), 'n', '32kB', pg)).toBe('n must be at least 64 kB.');
    expect(checkValue(timeout, 'statement_timeout', '5min', pg)).toBeNull();
    expect(checkValue(timeout, 'statement_timeout', '5MB', pg)).toBe('statement_timeout takes a time unit (us, ms, s, min, h, d), not MB.');
  });

  it('bounds memory by the host', () => {
    expect(checkValue(sharedBuffers, 'shared_buffers', '4GB', pg)).toBeNull();
    expect(checkValue(sharedBuffers, 'shared_buffers', '5GB', pg)).toBe("shared_buffers may be at most 4GB: half of the host's memory.");
    expect(checkValue(sharedBuffers, 'shared_buffers', String(5 * 131072), pg)).toMatch(/half of the host's memory/);
    expect(checkValue(param({ name: 'max_connections', min: 1, max: 262143 }), 'max_connections', '5000', pg)).toMatch(/what the host's memory allows \(819\)/);
  });

  it('refuses control characters in any value, and units where the engine takes plain numbers', () => {
    expect(checkValue(param({ type: 'string' }), 'x', 'a\u0000b', pg)).toMatch(/control characters/);
    expect(checkValue(param({ type: 'string' }), 'x', 'tab\there', pg)).toMatch(/control characters/);
    expect(checkValue(param({ name: 'heartbeat-interval', unit: 'ms' }), 'heartbeat-interval', '1s', { units: false, host })).toBe('heartbeat-interval takes a plain number (in ms).');
  });
});

describe('the policy table', () => {
  it('leaves ordinary parameters to members and keeps programs, libraries and paths to Warden', () => {
    expect(parameterPolicy('pg', 'work_mem').policy).toBe('user');
    expect(parameterPolicy('pg', 'debug_print_plan').policy).toBe('admin');
    expect(parameterPolicy('pg', 'toString').policy).toBe('user');
    expect(parameterPolicy('etcd', 'data-dir').policy).toBe('managed');
    expect(policyErrors('pg', { work_mem: '1MB', archive_library: 'x', fsync: 'off' }, false)).toEqual({
      archive_library: ['archive_library is managed by Warden: it loads code into the server.'],
      fsync: ['Only an admin may set fsync: turning it off can lose or corrupt data on a crash.'],
    });
    expect(policyErrors('pg', { fsync: 'off' }, true)).toEqual({});
  });
});

describe('names every object inherits', () => {
  it('are no unit', () => {
    const workMem = param({ name: 'work_mem', unit: 'kB', min: 64, max: 2147483647 });
    for (const unit of ['constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
      expect(checkValue(workMem, 'work_mem', `1${unit}`, pg)).toBe(`work_mem takes a memory unit (B, kB, MB, GB, TB), not ${unit}.`);
    }
    expect(checkValue(param({ name: 'statement_timeout', unit: 'ms' }), 'statement_timeout', '5constructor', pg)).toMatch(/takes a time unit/);
    expect(checkValue(undefined, 'constructor', '1', pg)).toBe('Unknown parameter constructor.');
  });
});

describe('list parameters', () => {
  it('read elements as PostgreSQL does: names folded unless quoted, files kept as written', () => {
    expect(listElements('search_path', '"$user", public')).toEqual(['$user', 'public']);
    expect(listElements('search_path', ' Public ,"Sales Data","say ""hi"""')).toEqual(['public', 'Sales Data', 'say "hi"']);
    expect(listElements('search_path', '')).toEqual([]);
    expect(listElements('shared_preload_libraries', 'pg_stat_statements , Auto Explain')).toEqual(['pg_stat_statements', 'Auto Explain']);
    for (const broken of ['a,,b', 'a b', '"open', 'a,', '""']) expect(listElements('search_path', broken)).toBeNull();
    expect(listElements('DateStyle', 'ISO, MDY')).toBeNull();
  });

  it('are saved as ALTER SYSTEM saves them, and read back to the same elements', () => {
    expect(savedForm('search_path', '"$user",public')).toBe('"$user", public');
    expect(savedForm('search_path', 'a, "B", "c""d"')).toBe('a, "B", "c""d"');
    expect(savedForm('shared_preload_libraries', '')).toBe('');
    expect(savedForm('DateStyle', 'ISO,MDY')).toBe('ISO,MDY');
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'B', '"', ' ', ',', '$', '_', '1'), minLength: 1 }).filter((e) => e.trim() === e), { maxLength: 4 }), (elements) => {
        expect(listElements('shared_preload_libraries', savedForm('shared_preload_libraries', listValue(elements)))).toEqual(elements);
      }),
    );
  });
});

describe('member bounds', () => {
  it('refuse a member more than the bound, in any unit, and leave admins to the value checks', () => {
    expect(policyErrors('pg', { work_mem: '256MB', maintenance_work_mem: '1048576', temp_file_limit: '0', hash_mem_multiplier: '4' }, false)).toEqual({});
    expect(policyErrors('pg', { work_mem: '262145', temp_file_limit: '-1', autovacuum_work_mem: '-1' }, false)).toEqual({
      work_mem: [expect.stringMatching(/^A member may set work_mem up to 256MB, an admin beyond: .+\.$/)],
      temp_file_limit: [expect.stringMatching(/^A member may set temp_file_limit from 0 to 100GB, an admin beyond: .+\.$/)],
    });
    expect(policyErrors('pg', { work_mem: '1TB', temp_file_limit: '-1', max_locks_per_transaction: '100000' }, true)).toEqual({});
    // A value that is no number is for the value checks to explain.
    expect(policyErrors('pg', { work_mem: 'lots' }, false)).toEqual({});
  });

  it('are the limits a member is shown', () => {
    expect(memberRange('pg', 'work_mem', false)).toEqual({ min: null, max: 262144 });
    expect(memberRange('pg', 'temp_buffers', false)).toEqual({ min: null, max: 32768 });
    expect(memberRange('pg', 'temp_file_limit', false)).toEqual({ min: 0, max: 100 * 1024 ** 2 });
    expect(memberRange('pg', 'work_mem', true)).toBeNull();
    expect(memberRange('pg', 'statement_timeout', false)).toBeNull();
  });
});

describe('libraries', () => {
  it('let admins load libraries and keep the settings of loaded ones from members', () => {
    expect(parameterPolicy('pg', 'shared_preload_libraries').policy).toBe('admin');
    expect(parameterPolicy('pg', 'basebackup_to_shell.command').policy).toBe('managed');
    expect(parameterPolicy('pg', 'pg_stat_statements.max').policy).toBe('admin');
    expect(parameterPolicy('pg', 'plpgsql.variable_conflict').policy).toBe('user');
  });
});
