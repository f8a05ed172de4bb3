import { mapBounded, PartialFailure } from '../../tools/admin/concurrency';

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
