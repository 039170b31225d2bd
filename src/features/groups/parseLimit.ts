/** How a limit's field is read: whole or not, its bounds, and what an empty field stands for. */
export interface LimitRule {
  whole: boolean;
  min: number;
  max: number;
  /** What an empty field means, as the error says it: "unlimited", "the default". */
  empty: string;
}

/** A field's text as a limit: empty is null, anything else must be a number within the rule's bounds. */
export function parseLimit(text: string, rule: LimitRule): { value: number | null } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { value: null };
  const number = Number(trimmed);
  if (!Number.isFinite(number) || number < rule.min) {
    return { error: `Enter a number of at least ${rule.min.toLocaleString('en')}, or leave it empty for ${rule.empty}.` };
  }
  if (rule.whole && !Number.isInteger(number)) return { error: 'Enter a whole number.' };
  if (number > rule.max) return { error: `Enter at most ${rule.max.toLocaleString('en')}.` };
  return { value: number };
}
