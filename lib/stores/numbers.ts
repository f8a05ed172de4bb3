// DynamoDB numbers as the document client returns them: wrapped (`NumberValue`, whose `value` holds
// the exact decimal digits, see createDocumentClient), or plain numbers and bigints written locally.

/** The exact digits of a stored number, or undefined when the value is not a number. */
export function numberText(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'object' && value !== null && 'value' in value) {
    const text = (value as { value: unknown }).value;
    return typeof text === 'string' ? text : undefined;
  }
  return undefined;
}

/** A stored number as a JS number (for counts and times, never for int64 ids), or undefined. */
export function numberOf(value: unknown): number | undefined {
  const text = numberText(value);
  if (text === undefined) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}
