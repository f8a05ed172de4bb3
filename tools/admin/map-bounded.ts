// Bounded concurrency for the imports' and the backfill's conditional writes: generic, as
// async-merge.ts is, and tested as a plain function.
export class PartialFailure extends Error {
  override readonly name = 'PartialFailure';
  constructor(
    cause: unknown,
    readonly succeeded: number,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/**
 * Runs `task` over `items` with at most `limit` in flight, results in input order. After the first
 * failure no new task starts; the ones in flight finish, then the failure is thrown with how many
 * had succeeded, so a caller can say what was written.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
  /** Once aborted no new task starts; the results array then has holes where none ran. */
  signal?: AbortSignal,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let succeeded = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && !signal?.aborted && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T, index);
        succeeded++;
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw new PartialFailure(failure.error, succeeded);
  return results;
}
