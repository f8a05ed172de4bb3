// What every limiter store must do, write by write (the port, lib/core/limiter/store.ts): run
// against the in-memory store (test/unit) and the DynamoDB store on the embedded server
// (test/integration), so the algorithm's unit tests over the one hold for the other. Requests are
// sequential here; interleavings are the concurrency and late-reply files' business.
import { randomUUID } from 'node:crypto';
import type { Limits } from '../../lib/contract/plans';
import type { LimiterItem, LimiterStore } from '../../lib/core/limiter/store';
import { MINUTE_SECONDS, windowAt } from '../../lib/core/limiter/windows';

/** 10:00:15 UTC: a second well inside its minute and its day. */
const NOW = Date.parse('2026-11-22T10:00:15Z') / 1000;
const MINUTE = windowAt('minute', NOW).start;
const NEXT_MINUTE = MINUTE + MINUTE_SECONDS;
/** Small limits, so that a few writes reach them. */
const LIMITS: Limits = { perMinute: 2, perDay: 3 };
const BAN = { from: NOW + 1, until: NOW + 900, now: NOW };

const newItem = (at = NOW): LimiterItem => ({ keyId: `key-${randomUUID()}`, day: windowAt('day', at) });

export function limiterStoreContract(store: () => LimiterStore): void {
  const take = (item: LimiterItem, minute: number, newMinute: boolean, now = NOW, limits = LIMITS) =>
    store().take(item, { minute, newMinute, now, limits });

  test('the first request of a minute creates the item: a day count of 1, the minute with 1 and no refusals', async () => {
    const item = newItem();
    expect(await take(item, MINUTE, true)).toEqual({ applied: true, day: 1, inMinute: 1 });
    expect(await store().read(item)).toEqual({
      day: 1,
      minute: MINUTE,
      inMinute: 1,
      refused: 0,
      bannedFrom: undefined,
      bannedUntil: undefined,
      revoked: false,
    });
  });

  test('a take into the stored minute on no item fails, and finds none', async () => {
    const item = newItem();
    expect(await take(item, MINUTE, false)).toEqual({ applied: false, found: 'absent' });
    expect(await store().read(item)).toBe('absent');
  });

  test('a give-back undoes one admission into the stored minute: both counts go down, a slot is free again', async () => {
    const item = newItem();
    await take(item, MINUTE, true);
    await take(item, MINUTE, false);
    expect(await store().giveBack(item, { minute: MINUTE })).toBe(true);
    expect(await store().read(item)).toMatchObject({ day: 1, minute: MINUTE, inMinute: 1 });
    expect(await take(item, MINUTE, false)).toEqual({ applied: true, day: 2, inMinute: 2 });
  });

  test('a give-back after the minute moved on returns only the day count; none goes below 0', async () => {
    const item = newItem();
    await take(item, MINUTE, true);
    await take(item, NEXT_MINUTE, true);
    expect(await store().giveBack(item, { minute: MINUTE })).toBe(true);
    expect(await store().read(item)).toMatchObject({ day: 1, minute: NEXT_MINUTE, inMinute: 1 });
    expect(await store().giveBack(item, { minute: NEXT_MINUTE })).toBe(true);
    expect(await store().read(item)).toMatchObject({ day: 0, minute: NEXT_MINUTE, inMinute: 0 });
    expect(await store().giveBack(item, { minute: NEXT_MINUTE })).toBe(false);
    expect(await store().giveBack(newItem(), { minute: MINUTE })).toBe(false);
  });

  test('takes into the stored minute count up to the minute limit, then fail with the full minute', async () => {
    const item = newItem();
    await take(item, MINUTE, true);
    expect(await take(item, MINUTE, false)).toEqual({ applied: true, day: 2, inMinute: 2 });
    expect(await take(item, MINUTE, false)).toEqual({
      applied: false,
      found: expect.objectContaining({ day: 2, minute: MINUTE, inMinute: 2 }),
    });
  });

  test('takes into the stored minute fail once the day is full', async () => {
    const item = newItem();
    const limits = { perMinute: 10, perDay: 2 };
    await take(item, MINUTE, true, NOW, limits);
    expect(await take(item, MINUTE, false, NOW, limits)).toMatchObject({ applied: true, day: 2 });
    expect(await take(item, MINUTE, false, NOW, limits)).toEqual({
      applied: false,
      found: expect.objectContaining({ day: 2, inMinute: 2 }),
    });
  });

  test('a take into a minute that is not the stored one fails, and finds the stored one', async () => {
    const item = newItem();
    await take(item, MINUTE, true);
    expect(await take(item, NEXT_MINUTE, false, NEXT_MINUTE)).toEqual({
      applied: false,
      found: expect.objectContaining({ minute: MINUTE, inMinute: 1 }),
    });
  });

  test('a new minute replaces an earlier one (count 1, no refusals) and the day goes on; a stored minute is never moved back', async () => {
    const item = newItem();
    await take(item, MINUTE, true);
    await store().recordRefusal(item, { minute: MINUTE, newMinute: false });
    expect(await take(item, NEXT_MINUTE, true, NEXT_MINUTE)).toEqual({ applied: true, day: 2, inMinute: 1 });
    expect(await store().read(item)).toMatchObject({ day: 2, minute: NEXT_MINUTE, inMinute: 1, refused: 0 });
    // The same minute again, or an earlier one (a lagging clock): refused, nothing changes.
    for (const minute of [NEXT_MINUTE, MINUTE]) {
      expect(await take(item, minute, true, minute)).toEqual({
        applied: false,
        found: expect.objectContaining({ day: 2, minute: NEXT_MINUTE }),
      });
    }
  });

  test('a new minute is not started once the day is full', async () => {
    const item = newItem();
    const limits = { perMinute: 10, perDay: 1 };
    await take(item, MINUTE, true, NOW, limits);
    expect(await take(item, NEXT_MINUTE, true, NEXT_MINUTE, limits)).toEqual({
      applied: false,
      found: expect.objectContaining({ day: 1, minute: MINUTE }),
    });
  });

  test('no take while a ban is in force; a ban from the next second, or one ended, stops none', async () => {
    const item = newItem();
    await take(item, MINUTE, true);
    expect(await store().writeBan(item, BAN)).toEqual({ applied: true });
    // Written at NOW, in force from NOW + 1 (the same minute).
    expect(await take(item, MINUTE, false, NOW)).toMatchObject({ applied: true, inMinute: 2 });
    const limits = { perMinute: 10, perDay: 10 };
    expect(await take(item, MINUTE, false, NOW + 1, limits)).toEqual({
      applied: false,
      found: expect.objectContaining({ bannedFrom: BAN.from, bannedUntil: BAN.until, inMinute: 2 }),
    });
    const banEndMinute = windowAt('minute', BAN.until).start;
    expect(await take(item, banEndMinute, true, BAN.until - 1, limits)).toMatchObject({ applied: false });
    expect(await take(item, banEndMinute, true, BAN.until, limits)).toEqual({ applied: true, day: 3, inMinute: 1 });
  });

  test('a refusal adds to the stored minute and returns its count; in another minute it is not recorded', async () => {
    const item = newItem();
    expect(await store().recordRefusal(item, { minute: MINUTE, newMinute: false })).toBeUndefined();
    await take(item, MINUTE, true);
    expect(await store().recordRefusal(item, { minute: MINUTE, newMinute: false })).toBe(1);
    expect(await store().recordRefusal(item, { minute: MINUTE, newMinute: false })).toBe(2);
    expect(await store().recordRefusal(item, { minute: NEXT_MINUTE, newMinute: false })).toBeUndefined();
    expect(await store().read(item)).toMatchObject({ day: 1, minute: MINUTE, inMinute: 1, refused: 2 });
  });

  test('a refusal as the first of a minute starts it with no request and one refusal, unless that minute or a later one is stored', async () => {
    const item = newItem();
    await take(item, MINUTE, true);
    expect(await store().recordRefusal(item, { minute: NEXT_MINUTE, newMinute: true })).toBe(1);
    expect(await store().read(item)).toMatchObject({ day: 1, minute: NEXT_MINUTE, inMinute: 0, refused: 1 });
    expect(await store().recordRefusal(item, { minute: NEXT_MINUTE, newMinute: true })).toBeUndefined();
    expect(await store().recordRefusal(item, { minute: MINUTE, newMinute: true })).toBeUndefined();
    expect(await store().read(item)).toMatchObject({ minute: NEXT_MINUTE, refused: 1 });
  });

  test('a ban is written unless one is in force, which it then finds unchanged; an ended ban is replaced', async () => {
    const item = newItem();
    await take(item, MINUTE, true);
    expect(await store().writeBan(item, BAN)).toEqual({ applied: true });
    // Later, and before the first has started: the first holds.
    const second = { from: NOW + 2, until: NOW + 901, now: NOW };
    expect(await store().writeBan(item, second)).toEqual({
      applied: false,
      found: expect.objectContaining({ bannedFrom: BAN.from, bannedUntil: BAN.until }),
    });
    const after = { from: BAN.until + 1, until: BAN.until + 900, now: BAN.until };
    expect(await store().writeBan(item, after)).toEqual({ applied: true });
    expect(await store().read(item)).toMatchObject({ day: 1, bannedFrom: after.from, bannedUntil: after.until });
  });

  test("a ban written on a day's item that does not exist yet creates it with the ban alone", async () => {
    const tomorrow = newItem(windowAt('day', NOW).resetAt);
    expect(await store().writeBan(tomorrow, BAN)).toEqual({ applied: true });
    expect(await store().read(tomorrow)).toEqual({
      day: 0,
      minute: undefined,
      inMinute: 0,
      refused: 0,
      bannedFrom: BAN.from,
      bannedUntil: BAN.until,
      revoked: false,
    });
  });

  test('a revocation mark stops every take, into the stored minute or a new one, and changes no count; it finds the mark', async () => {
    const item = newItem();
    await take(item, MINUTE, true);
    await store().markRevoked(item, { at: NOW });
    const marked = { day: 1, minute: MINUTE, inMinute: 1, refused: 0, revoked: true };
    expect(await take(item, MINUTE, false)).toEqual({ applied: false, found: expect.objectContaining(marked) });
    expect(await take(item, NEXT_MINUTE, true, NOW + MINUTE_SECONDS)).toEqual({
      applied: false,
      found: expect.objectContaining(marked),
    });
    expect(await store().read(item)).toMatchObject(marked);
    // Marking again keeps the mark (and the counts).
    await store().markRevoked(item, { at: NOW + 5 });
    expect(await store().read(item)).toMatchObject(marked);
  });

  test("a revocation mark on a day's item that does not exist yet creates it with the mark alone; no take passes it", async () => {
    const tomorrow = newItem(windowAt('day', NOW).resetAt);
    await store().markRevoked(tomorrow, { at: NOW });
    expect(await store().read(tomorrow)).toEqual({
      day: 0,
      minute: undefined,
      inMinute: 0,
      refused: 0,
      bannedFrom: undefined,
      bannedUntil: undefined,
      revoked: true,
    });
    const next = windowAt('day', NOW).resetAt + 15;
    expect(await take(tomorrow, windowAt('minute', next).start, true, next)).toEqual({
      applied: false,
      found: expect.objectContaining({ day: 0, revoked: true }),
    });
  });
}
