// Retry-After as RFC 9110 (section 10.2.3) defines it: delta-seconds (a non-negative integer) or an
// HTTP-date. Anything else is no Retry-After at all, so the client backs off on its own. Date.parse
// is not used: it reads '1.5' or '-5' as dates, and asctime-style dates in local time.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

/** IMF-fixdate, the form servers send: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** The two obsolete forms a recipient must still accept. */
const RFC850_DATE = new RegExp(
  `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`,
);
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** Longer than any wait a client would honour; keeps a 400-digit delta-seconds a finite number. */
const MAX_DELTA_SECONDS = 2 ** 31 - 1;

/**
 * The seconds a Retry-After value asks to wait (a date already past is 0), or undefined when the
 * value is not a valid Retry-After.
 */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value), MAX_DELTA_SECONDS);
  const date = httpDate(value, nowMs);
  return date === undefined ? undefined : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/** An HTTP-date in ms since the epoch, or undefined when the text is not one (or names no real day). */
function httpDate(text: string, nowMs: number): number | undefined {
  let match = IMF_FIXDATE.exec(text);
  if (match) return utc(match[3], match[2], match[1], match.slice(4));
  match = RFC850_DATE.exec(text);
  if (match) {
    // Two-digit year: the one more than 50 years ahead is taken as the past century's (RFC 9110).
    const thisYear = new Date(nowMs).getUTCFullYear();
    let year = thisYear - (thisYear % 100) + Number(match[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(String(year), match[2], match[1], match.slice(4));
  }
  match = ASCTIME_DATE.exec(text);
  if (match) return utc(match[6], match[1], match[2]?.trim(), match.slice(3, 6));
  return undefined;
}

function utc(
  yearText: string | undefined,
  monthName: string | undefined,
  dayText: string | undefined,
  time: (string | undefined)[],
): number | undefined {
  const [year, day, hour, minute, second] = [yearText, dayText, ...time].map(Number) as number[];
  const month = MONTHS.indexOf(monthName ?? '');
  if (hour === undefined || minute === undefined || second === undefined || day === undefined || year === undefined)
    return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = Date.UTC(year, month, day, hour, minute, Math.min(second, 59));
  // 31 Feb and the like roll over into the next month: not a date.
  return new Date(ms).getUTCDate() === day ? ms : undefined;
}
