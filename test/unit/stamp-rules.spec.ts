// The stamp rules of lib/core/sync/stamps.ts, table by table: the next stamp, and whether a stamped
// write tries again, with which history (the stamps its conditions accept) and after what backoff.
import {
  afterAttempt,
  NO_ATTEMPT,
  nextStamp,
  STAMPED_ATTEMPTS,
  STAMPED_BACKOFF_BASE_MS,
  stampAfter,
  type AttemptEnd,
  type StampHistory,
} from '../../lib/core/sync/stamps';

const T = Date.UTC(2026, 10, 22, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

describe('stampAfter', () => {
  test.each([
    ['no updatedAt', undefined, T],
    ['an earlier updatedAt', iso(T - 5), T],
    ['the same millisecond', iso(T), T + 1],
    ['a future one (a writer whose clock ran ahead)', iso(T + 60_000), T + 60_001],
  ])('after %s', (_, after, stamp) => {
    expect(stampAfter(T, after)).toBe(iso(stamp));
  });
});

describe('nextStamp', () => {
  const history = (fields: Partial<StampHistory>): StampHistory => ({ ...NO_ATTEMPT, ...fields });
  test.each([
    ['a first attempt', history({}), undefined, T],
    ['a first attempt after the item', history({}), iso(T + 10), T + 11],
    ['a retry in the same millisecond as its last stamp', history({ attempts: 1, last: iso(T) }), undefined, T + 1],
    [
      "a retry after another writer's stamp",
      history({ attempts: 1, last: iso(T), seen: iso(T + 500) }),
      undefined,
      T + 501,
    ],
    [
      'the latest of the item, the writer seen and its own last stamp, by time',
      history({ attempts: 2, last: iso(T + 900), seen: iso(T + 500) }),
      iso(T + 700),
      T + 901,
    ],
    ['a retry whose clock moved on', history({ attempts: 1, last: iso(T - 2_000) }), iso(T - 1_000), T],
  ])('%s', (_, before, after, stamp) => {
    expect(nextStamp(before, T, after)).toBe(iso(stamp));
  });
});

describe('afterAttempt', () => {
  const stamp = iso(T);
  const failed: AttemptEnd = { kind: 'dependency failed' };
  const later: AttemptEnd = { kind: 'stamped later', updatedAt: iso(T + 5) };

  test.each<[string, StampHistory, AttemptEnd, ReturnType<typeof afterAttempt>]>([
    ['an answer ends the write', NO_ATTEMPT, { kind: 'answered' }, { retry: false, reason: 'answered' }],
    ['a failure of ours is never retried', NO_ATTEMPT, { kind: 'failed' }, { retry: false, reason: 'failed' }],
    [
      "a dependency's failure: tried again after a backoff, its stamp accepted by the retry's condition",
      NO_ATTEMPT,
      failed,
      { retry: true, backoffMs: STAMPED_BACKOFF_BASE_MS / 2, history: { attempts: 1, last: stamp, earlier: [stamp] } },
    ],
    [
      "another writer's later stamp: tried again at once, stamped after it; an answered attempt is not accepted",
      NO_ATTEMPT,
      later,
      { retry: true, backoffMs: 0, history: { attempts: 1, last: stamp, seen: iso(T + 5), earlier: [] } },
    ],
    [
      'a later stamp after a failure keeps the failed stamp accepted',
      { attempts: 1, last: iso(T - 1), earlier: [iso(T - 1)] },
      later,
      { retry: true, backoffMs: 0, history: { attempts: 2, last: stamp, seen: iso(T + 5), earlier: [iso(T - 1)] } },
    ],
    [
      'the backoff doubles with each attempt',
      { attempts: 1, last: iso(T - 1), earlier: [iso(T - 1)] },
      failed,
      {
        retry: true,
        backoffMs: STAMPED_BACKOFF_BASE_MS,
        history: { attempts: 2, last: stamp, earlier: [iso(T - 1), stamp] },
      },
    ],
    [
      'the last attempt failed: no more, whatever ended it',
      { attempts: STAMPED_ATTEMPTS - 1, last: iso(T - 1), earlier: [] },
      failed,
      { retry: false, reason: 'out of attempts' },
    ],
    [
      'the last attempt met a later stamp: no more either',
      { attempts: STAMPED_ATTEMPTS - 1, last: iso(T - 1), earlier: [] },
      later,
      { retry: false, reason: 'out of attempts' },
    ],
  ])('%s', (_, history, end, next) => {
    expect(afterAttempt(history, stamp, end, { random: 0.5 })).toEqual(next);
  });

  test('a write makes at most STAMPED_ATTEMPTS attempts, whatever mix of failures and later stamps ends them', () => {
    for (let mix = 0; mix < 2 ** STAMPED_ATTEMPTS; mix++) {
      let history = NO_ATTEMPT;
      let attempts = 0;
      for (;;) {
        attempts++;
        const end = (mix >> (attempts - 1)) & 1 ? later : failed;
        const next = afterAttempt(history, iso(T + attempts), end, { random: 0.5 });
        if (!next.retry) break;
        history = next.history;
      }
      expect(attempts).toBe(STAMPED_ATTEMPTS);
    }
  });

  test('a test may allow fewer attempts', () => {
    expect(afterAttempt(NO_ATTEMPT, stamp, failed, { maxAttempts: 1, random: 0 })).toEqual({
      retry: false,
      reason: 'out of attempts',
    });
  });
});
