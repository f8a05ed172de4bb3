// The clock and timers that decide deadlines: the real ones in a function and on `npm start`, a
// virtual clock in tests (test/support/virtual-time.ts), so a test of what slow replies do to the
// deadlines runs minutes of them without waiting for them.

export interface Timers {
  /** Epoch ms; durations are measured on it too. */
  now(): number;
  /** Calls `fire` once `ms` have passed; the function returned cancels it. */
  after(ms: number, fire: () => void): () => void;
}

export const REAL_TIMERS: Timers = {
  now: () => Date.now(),
  after: (ms, fire) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};
