/**
 * Yields the values of several async iterables as each becomes ready, so parallel Scan segments
 * feed one writer without waiting on the slowest.
 */
export async function* mergeAsyncIterables<T>(sources: AsyncIterable<T>[]): AsyncGenerator<T> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  const pending = new Map<number, Promise<{ index: number; result: IteratorResult<T> }>>();
  const pull = (index: number) => {
    const iterator = iterators[index] as AsyncIterator<T>;
    const next = iterator.next().then((result) => ({ index, result }));
    // A segment that fails while another is being awaited must not become an unhandled rejection;
    // the race below still sees the failure.
    next.catch(() => undefined);
    pending.set(index, next);
  };
  iterators.forEach((_, index) => pull(index));
  try {
    while (pending.size > 0) {
      const { index, result } = await Promise.race(pending.values());
      if (result.done) {
        pending.delete(index);
      } else {
        pull(index);
        yield result.value;
      }
    }
  } finally {
    // Stop the other segments when the consumer stops early or one of them failed.
    await Promise.allSettled([...pending.keys()].map((index) => iterators[index]?.return?.()));
  }
}
