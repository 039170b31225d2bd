import type { ConfigParameter } from '../../../contracts/instances';
import { plainInteger, plainReal, quoteValue } from '../../../contracts/parameterUnits';

/**
 * The configuration screen's edits: parameter name → the value typed, only where it differs
 * from the saved value. Everything here is pure, so the form and the raw view share it.
 */
export type Edits = Readonly<Record<string, string>>;

export type ApplyKind = ConfigParameter['apply'];

export interface Change {
  name: string;
  from: string;
  to: string;
  apply: ApplyKind;
  /** The parameter's unit (`kB`, `8kB`, `ms`), which a bare number is counted in. */
  unit: string | null;
}

/** The edits as changes, in the order the server lists the parameters. */
export function changesOf(parameters: readonly ConfigParameter[], edits: Edits): Change[] {
  return parameters
    .filter(({ name }) => name in edits)
    .map(({ name, value, apply, unit }) => ({ name, from: value, to: edits[name], apply, unit }));
}

/** The edits after typing `value` into `parameter`: typing the saved value back undoes the change. */
export function withValue(edits: Edits, parameter: Pick<ConfigParameter, 'name' | 'value'>, value: string): Edits {
  const { [parameter.name]: _previous, ...rest } = edits;
  return value === parameter.value ? rest : { ...rest, [parameter.name]: value };
}

const trueWords = ['on', 'true', 'yes', '1'];
const falseWords = ['off', 'false', 'no', '0'];

export const isOn = (value: string) => trueWords.includes(value.trim().toLowerCase());

/** A switch's value in the parameter's own words: on/off for pg, true/false where the saved value uses those. */
export function boolValue(parameter: Pick<ConfigParameter, 'value'>, on: boolean): string {
  const saved = parameter.value.trim().toLowerCase();
  const words = saved === 'true' || saved === 'false' ? ['true', 'false'] : ['on', 'off'];
  return on ? words[0] : words[1];
}

// A number with a unit (128MB, 5min): the server converts and checks those.
const withUnit = /^[+-]?(\d+\.?\d*|\.\d+)\s*[a-z]+$/i;

/** The bounds as an operator reads them: "1 – 262143 8kB". */
export function boundsText({ min, max, unit }: Pick<ConfigParameter, 'min' | 'max' | 'unit'>): string | null {
  if (min === null && max === null) return null;
  const range = min !== null && max !== null ? `${min} – ${max}` : min !== null ? `at least ${min}` : `at most ${max}`;
  return unit ? `${range} ${unit}` : range;
}

/**
 * What is wrong with a value by the parameter's own metadata, or null. The server checks again
 * (and alone checks values written with units); this catches what can be seen while typing.
 */
export function valueProblem(parameter: ConfigParameter, value: string): string | null {
  const text = value.trim();
  switch (parameter.type) {
    case 'bool':
      return isOn(text) || falseWords.includes(text.toLowerCase()) ? null : 'Must be on or off.';
    case 'enum': {
      const allowed = parameter.enumValues ?? [];
      return allowed.length === 0 || allowed.some((option) => option.toLowerCase() === text.toLowerCase())
        ? null
        : `Must be one of: ${allowed.join(', ')}.`;
    }
    case 'integer':
    case 'real': {
      if (withUnit.test(text)) return null;
      const integer = parameter.type === 'integer';
      if (!(integer ? plainInteger : plainReal).test(text)) return integer ? 'Must be a whole number.' : 'Must be a number.';
      const number = Number(text);
      const { min, max } = parameter;
      if ((min !== null && number < min) || (max !== null && number > max)) {
        return `Must be within ${boundsText(parameter)}.`;
      }
      return null;
    }
    case 'string':
      return null;
  }
}

/** Each changed parameter's local problem, by name. */
export function problemsOf(parameters: readonly ConfigParameter[], edits: Edits): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const parameter of parameters) {
    if (!(parameter.name in edits)) continue;
    const problem = valueProblem(parameter, edits[parameter.name]);
    if (problem) problems[parameter.name] = problem;
  }
  return problems;
}

// ---- The raw view: `name = value` lines as postgresql.conf writes them ----

export function formatRaw(changes: readonly Pick<Change, 'name' | 'to'>[]): string {
  return changes.map(({ name, to }) => `${name} = ${quoteValue(to)}\n`).join('');
}

export interface ParsedRaw {
  /** Every parameter the text sets, by its canonical name. */
  values: Record<string, string>;
  /** One line per unreadable line, "Line 3: …"; when there is any, `values` must not be applied. Values out of bounds are read: the form flags them. */
  errors: string[];
}

const assignment = /^([A-Za-z_][\w.-]*)\s*(?:=\s*|\s+)(.*)$/;

/** The value part of a line: a quoted string ('' is a quote) or a bare word, then at most a comment. */
function readValue(text: string): string | { problem: string } {
  if (text.startsWith("'")) {
    let value = '';
    for (let i = 1; i < text.length; i += 1) {
      if (text[i] !== "'") {
        value += text[i];
      } else if (text[i + 1] === "'") {
        value += "'";
        i += 1;
      } else {
        const rest = text.slice(i + 1).trim();
        return rest === '' || rest.startsWith('#') ? value : { problem: 'unexpected text after the quoted value' };
      }
    }
    return { problem: 'the quoted value is not closed' };
  }
  const value = text.replace(/#.*$/, '').trim();
  if (value === '') return { problem: "no value (write '' for an empty one)" };
  if (/\s/.test(value)) return { problem: 'a value with spaces must be quoted' };
  return value;
}

/** The raw view's text back into values, checked against the parameters the instance has. */
export function parseRaw(text: string, parameters: readonly ConfigParameter[]): ParsedRaw {
  const byName = new Map(parameters.map((parameter) => [parameter.name.toLowerCase(), parameter]));
  const values: Record<string, string> = {};
  const seenOn = new Map<string, number>();
  const errors: string[] = [];

  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    const number = index + 1;
    if (line === '' || line.startsWith('#')) return;
    const match = assignment.exec(line);
    if (!match) {
      errors.push(`Line ${number}: expected name = value.`);
      return;
    }
    const parameter = byName.get(match[1].toLowerCase());
    if (!parameter) {
      errors.push(`Line ${number}: there is no parameter ${match[1]}.`);
      return;
    }
    const value = readValue(match[2]);
    if (typeof value !== 'string') {
      errors.push(`Line ${number}: ${value.problem}.`);
      return;
    }
    const earlier = seenOn.get(parameter.name);
    if (earlier !== undefined) {
      errors.push(`Line ${number}: ${parameter.name} is already set on line ${earlier}.`);
      return;
    }
    seenOn.set(parameter.name, number);
    values[parameter.name] = value;
  });
  return { values, errors };
}

/** Parsed raw values as edits: a line that repeats the saved value changes nothing. */
export function editsFromRaw(parameters: readonly ConfigParameter[], values: Record<string, string>): Edits {
  let edits: Edits = {};
  for (const parameter of parameters) {
    if (parameter.name in values) edits = withValue(edits, parameter, values[parameter.name]);
  }
  return edits;
}
