// Every figure is a median of raw samples, taken in rotating order.

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] ?? Number.NaN;
}

/** Order-interleaved runs, so drift in machine load hits every variant alike. */
export function rotations<T>(items: readonly T[], round: number): T[] {
  const k = round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
