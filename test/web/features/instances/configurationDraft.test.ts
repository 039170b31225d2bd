import {
  boolValue,
  changesOf,
  editsFromRaw,
  formatRaw,
  parseRaw,
  valueProblem,
  withValue,
} from '../../../../src/features/instances/configDraft';
import { inUnit } from '../../../../contracts/parameterUnits';
import { pgParameters } from '../../handlers/configHandlers';
import { aParameter } from '../../handlers/instancesHandlers';

const byName = (name: string) => pgParameters.find((parameter) => parameter.name === name)!;

describe('configDraft: values', () => {
  it.each([
    ['max_connections', '0', 'Must be within 1 – 262143.'],
    ['max_connections', '262144', 'Must be within 1 – 262143.'],
    ['max_connections', '1.5', 'Must be a whole number.'],
    ['max_connections', 'lots', 'Must be a whole number.'],
    ['max_connections', '', 'Must be a whole number.'],
    ['max_connections', ' 300 ', null],
    // A unit is the server's to convert and check.
    ['work_mem', '8MB', null],
    ['work_mem', '32', 'Must be within 64 – 2147483647 kB.'],
    ['random_page_cost', '1.1', null],
    ['random_page_cost', '-1', 'Must be within 0 – 1.79769e+308.'],
    ['random_page_cost', '1e2', null],
    ['random_page_cost', 'cheap', 'Must be a number.'],
    ['log_min_messages', 'ERROR', null],
    ['log_min_messages', 'loud', 'Must be one of: debug1, info, notice, warning, error.'],
    ['log_connections', 'true', null],
    ['log_connections', 'maybe', 'Must be on or off.'],
    ['application_name', 'anything at all', null],
  ])('%s = %j → %s', (name, value, problem) => {
    expect(valueProblem(byName(name), value)).toBe(problem);
  });

  it('keeps only values that differ from the saved ones', () => {
    const work = byName('work_mem');
    const edits = withValue(withValue({}, work, '8192'), byName('max_connections'), '200');
    expect(changesOf(pgParameters, edits)).toEqual([
      { name: 'max_connections', from: '100', to: '200', apply: 'restart', unit: null },
      { name: 'work_mem', from: '4096', to: '8192', apply: 'reload', unit: 'kB' },
    ]);
    expect(withValue(edits, work, '4096')).toEqual({ max_connections: '200' });
  });

  it('shows both sides of a change in the parameter’s unit, whatever unit was typed', () => {
    expect(`${inUnit('16384', '8kB')} → ${inUnit('64MB', '8kB')}`).toBe('16384 8kB → 8192 8kB');
    expect(inUnit('1GB', 'kB')).toBe('1048576 kB');
    expect(inUnit('5min', 's')).toBe('300 s');
    expect(inUnit('250ms', 's')).toBe('0.25 s');
    // Nothing to convert: as written.
    expect(inUnit('64MB', 's')).toBe('64MB');
    expect(inUnit('warning', null)).toBe('warning');
    expect(inUnit('my app', null)).toBe("'my app'");
  });

  it('answers a switch in the words the parameter already uses', () => {
    expect(boolValue(aParameter({ name: 'fsync', value: 'off' }), true)).toBe('on');
    expect(boolValue(aParameter({ name: 'auto-compaction', value: 'false' }), true)).toBe('true');
    expect(boolValue(aParameter({ name: 'auto-compaction', value: 'TRUE' }), false)).toBe('false');
  });
});

describe('configDraft: raw lines', () => {
  it('round-trips values that need quoting', () => {
    const changes = [
      { name: 'application_name', to: "it's a 'name'" },
      { name: 'work_mem', to: '8MB' },
      { name: 'log_min_messages', to: '' },
    ];
    const text = formatRaw(changes);
    expect(text).toBe("application_name = 'it''s a ''name'''\nwork_mem = 8MB\nlog_min_messages = ''\n");
    expect(parseRaw(text, pgParameters)).toEqual({
      values: { application_name: "it's a 'name'", work_mem: '8MB', log_min_messages: '' },
      errors: [],
    });
  });

  it('reads postgresql.conf forms: no =, comments, blank lines, any case of the name', () => {
    const text = ['# tuned for the batch jobs', '', 'WORK_MEM 16MB   # per sort', "application_name='batch # 1'", '  max_connections =300'].join('\n');
    expect(parseRaw(text, pgParameters)).toEqual({
      values: { work_mem: '16MB', application_name: 'batch # 1', max_connections: '300' },
      errors: [],
    });
  });

  it('names each unreadable line', () => {
    const text = [
      'work_mem = 8MB',
      '= 5',
      'nope = 1',
      "application_name = 'unclosed",
      'application_name = two words',
      "application_name = 'x' y",
      'max_connections =',
      'work_mem = 16MB',
    ].join('\n');
    expect(parseRaw(text, pgParameters).errors).toEqual([
      'Line 2: expected name = value.',
      'Line 3: there is no parameter nope.',
      'Line 4: the quoted value is not closed.',
      'Line 5: a value with spaces must be quoted.',
      'Line 6: unexpected text after the quoted value.',
      "Line 7: no value (write '' for an empty one).",
      'Line 8: work_mem is already set on line 1.',
    ]);
  });

  it('turns lines that repeat the saved value into no change', () => {
    expect(editsFromRaw(pgParameters, { work_mem: '4096', max_connections: '50' })).toEqual({ max_connections: '50' });
  });
});
