// RFC 3339 date-time text, read as the ISO 8601 UTC text stored times use (updatedAt, shipDate):
// the v2 listing's updatedSince and the admin command's import files.

/** RFC 3339 date-time (section 5.6): date, `T`, time, optional fraction, `Z` or a numeric offset. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time as the ISO text updatedAt is stored in, or undefined when it is not one (a
 * day or time out of range included). A fraction finer than a millisecond rounds up, so "at or
 * after" never takes in a millisecond that began before the instant asked for.
 */
export function normalisedDateTime(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = m[7] ?? '';
  const offsetMinutes = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  if (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined;
  // Date.UTC would read the years 0 to 99 as 1900 to 1999; setUTCFullYear takes them as written.
  const local = new Date(0).setUTCFullYear(year, month - 1, day) + ((hour * 60 + minute) * 60 + second) * 1000;
  const back = new Date(local);
  const exact =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    back.getUTCHours() === hour &&
    back.getUTCMinutes() === minute &&
    back.getUTCSeconds() === second;
  if (!exact) return undefined;
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const finer = /[1-9]/.test(fraction.slice(3)) ? 1 : 0;
  const instant = new Date(local + millis + finer - offsetMinutes * 60_000);
  // Four-digit years only: beyond them toISOString writes an expanded year no updatedAt has.
  const iso = Number.isNaN(instant.getTime()) ? undefined : instant.toISOString();
  return iso && /^\d{4}-/.test(iso) ? iso : undefined;
}
