// Why a number written as text is not an int64 id, in words that say how to write it instead.
// Ids must be canonical (plain digits, no sign but a minus, no leading zeros), so `1E2` and `-0`
// are refused; the message says what they are and how to write them, not that they are too big.

import { canonicalInt64, INT64_MAX, INT64_MIN } from '../../lib/contract/order';

const DECIMAL = /^([+-]?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;
/** Exponents beyond this cannot give an int64 and are not expanded. */
const MAX_EXPONENT = 40;

/** The integer a decimal written with a fraction or an exponent stands for, when it is one. */
function integerValue(sign: string, digits: string, fraction: string, exponent: number): bigint | undefined {
  if (Math.abs(exponent) > MAX_EXPONENT) return undefined;
  const all = `${digits}${fraction}`;
  const shift = exponent - fraction.length;
  if (shift >= 0) return BigInt(`${sign === '-' ? '-' : ''}${all}${'0'.repeat(shift)}`);
  const dropped = all.slice(shift);
  if (!/^0*$/.test(dropped)) return undefined;
  return BigInt(`${sign === '-' ? '-' : ''}${all.slice(0, shift) || '0'}`);
}

function inRange(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

/** What is wrong with `text` as an int64 id, or undefined when it is one. */
export function int64Problem(text: string): string | undefined {
  if (canonicalInt64(text) !== undefined) return undefined;
  const match = DECIMAL.exec(text);
  if (!match) return `"${text}" is not a decimal integer`;
  const [, sign = '', digits = '', fraction, exponentText] = match;
  const value = integerValue(sign, digits, fraction ?? '', Number(exponentText ?? 0));
  const range = `the int64 range (${INT64_MIN} to ${INT64_MAX})`;
  if (value === undefined) return `${text} is not a whole number`;
  if (!inRange(value)) return `${text} is outside ${range}`;
  const canonical = value.toString();
  if (exponentText !== undefined) return `${text} is written with an exponent: write it in plain digits, ${canonical}`;
  if (fraction !== undefined) return `${text} has a decimal point: write it as ${canonical}`;
  if (value === 0n) return `${text} is zero written another way: write it as 0`;
  return `${text} has a plus sign or leading zeros: write it as ${canonical}`;
}
