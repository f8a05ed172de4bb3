// The checks every imported record shares: a JSON value read with lossless-json's numbers
// (LosslessNumber), so an int64 id beyond 2^53 keeps every digit, and each problem said where it is.
import { isLosslessNumber } from 'lossless-json';
import { canonicalInt64 } from '../../lib/contract/order';
import { int64Problem } from './int64-text';

const INT64 = 'must be an integer in the int64 range';

/** The exact digits of a JSON number, or undefined when the value is not a number. */
export function numberText(value: unknown): string | undefined {
  return isLosslessNumber(value) ? value.value : undefined;
}

export function int64(value: unknown): string | undefined {
  const text = numberText(value);
  return text === undefined ? undefined : canonicalInt64(text);
}

/** What is wrong with an int64 field's value: it says how to write a number that is not canonical. */
export function int64FieldProblem(value: unknown): string {
  const text = numberText(value);
  return text === undefined ? INT64 : (int64Problem(text) ?? INT64);
}

/** A record's required int64 `id`, or undefined with what is wrong with it pushed to `problems`. */
export function requiredId(record: Record<string, unknown>, at: string, problems: string[]): string | undefined {
  const id = int64(record.id);
  if (!Object.hasOwn(record, 'id')) problems.push(`${at}.id: is required`);
  else if (id === undefined) problems.push(`${at}.id: ${int64FieldProblem(record.id)}`);
  return id;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  // A number is parsed into a LosslessNumber object; its fields are the library's, not the file's.
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

export function unknownFields(fields: Record<string, unknown>, allowed: readonly string[], at: string): string[] {
  return Object.keys(fields)
    .filter((key) => !allowed.includes(key))
    .map((key) => `${at}.${key}: unknown field (allowed: ${allowed.join(', ')})`);
}
