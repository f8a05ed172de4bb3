import { mapBounded, PartialFailure } from '../../tools/admin/map-bounded';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

test('keeps at most `limit` tasks in flight and results in input order', async () => {
  let inFlight = 0;
  let most = 0;
  const results = await mapBounded([...Array(50).keys()], 4, async (n) => {
    most = Math.max(most, ++inFlight);
    await tick();
    inFlight--;
    return n * 2;
  });
  expect(most).toBe(4);
  expect(results).toEqual([...Array(50).keys()].map((n) => n * 2));
});

test('starts nothing new after a failure and says how many succeeded', async () => {
  const started: number[] = [];
  const run = mapBounded([...Array(50).keys()], 3, async (n) => {
    started.push(n);
    await tick();
    if (n === 5) throw new Error('boom');
  });
  await expect(run).rejects.toBeInstanceOf(PartialFailure);
  await run.catch((error: PartialFailure) => {
    expect(error.message).toBe('boom');
    expect(error.succeeded).toBe(started.length - 1);
  });
  expect(started.length).toBeLessThan(10);
});

test('an empty list runs nothing', async () => {
  expect(await mapBounded([], 8, () => Promise.reject(new Error('never')))).toEqual([]);
});

test('starts nothing new once its signal aborts; the tasks in flight finish', async () => {
  const interrupt = new AbortController();
  const started: number[] = [];
  const finished: number[] = [];
  await mapBounded(
    [...Array(50).keys()],
    3,
    async (n) => {
      started.push(n);
      if (n === 10) interrupt.abort();
      await tick();
      finished.push(n);
    },
    interrupt.signal,
  );
  expect(Math.max(...started)).toBeLessThanOrEqual(12);
  expect(finished.sort((a, b) => a - b)).toEqual(started.sort((a, b) => a - b));
});

test("hands each task its item's index, whatever order the tasks finish in", async () => {
  // Each task finishes only after the one with the next index has (d, c, b, a), whatever the timers
  // and the machine's load do: timers of a few ms each could fire in any order on a busy machine.
  const seen: [string, number][] = [];
  const finished: (() => void)[] = [];
  const finishedAt = [0, 1, 2, 3].map((i) => new Promise<void>((resolve) => (finished[i] = resolve)));
  await mapBounded(['a', 'b', 'c', 'd'], 4, async (item, index) => {
    if (index < 3) await finishedAt[index + 1];
    seen.push([item, index]);
    finished[index]?.();
  });
  expect(seen).toEqual([
    ['d', 3],
    ['c', 2],
    ['b', 1],
    ['a', 0],
  ]);
});
