// Every figure is a median of raw samples, taken in rotating order.

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] as number;
}

/** Order-interleaved runs, so drift in machine load hits every variant alike. */
export function rotations<T>(items: readonly T[], round: number): T[] {
  const k = round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** A number for the table: thousands separated, fixed decimals. */
export const n = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The change from `from` to `to` as a signed percentage, e.g. `+12.5%`. */
export const pct = (from: number, to: number): string => `${to >= from ? '+' : ''}${n((to / from - 1) * 100, 1)}%`;
