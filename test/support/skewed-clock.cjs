'use strict';
// Test only: a machine whose clock is off, for a child process. Preloaded with
// `node --require test/support/skewed-clock.cjs`, it moves the wall clock (Date.now, new Date()
// and Date()) by TEST_CLOCK_SKEW_MS milliseconds, as a wrongly set clock would, and leaves the
// monotonic clock (performance.now) as it is, as such a machine does. Node has no faketime; this is
// the one way the tests skew a tool's clock (test/support/admin-cli.ts, docs/design.md).
const skew = Number(process.env.TEST_CLOCK_SKEW_MS);
if (!Number.isFinite(skew)) throw new Error(`TEST_CLOCK_SKEW_MS must be a number of milliseconds`);

const RealDate = Date;
const skewedNow = () => RealDate.now() + skew;

globalThis.Date = new Proxy(RealDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length ? args : [skewedNow()], newTarget),
  apply: () => new RealDate(skewedNow()).toString(),
  get: (target, name, receiver) => (name === 'now' ? skewedNow : Reflect.get(target, name, receiver)),
});
