// Runs a spec file inside a runner (a jest test file), in a describe block of the spec's name, so its
// hooks (beforeAll, beforeEach, afterAll) apply to its own tests only. Every jest test file loads
// its modules afresh (the AWS SDK, middy, Powertools and the local stack: about 0.6 s of CPU);
// grouped, the specs of a runner load them once. A spec that changes process-wide state (the
// environment Powertools reads, the console) stays a test file of its own.
//
// The runner names each spec by a literal, `runSpec('x', () => require('./x.spec'))`, so jest's
// dependency graph sees it (--findRelatedTests, -o, --watch), and a spec also runs alone as a test
// file (`npx jest test/unit/x.spec.ts`): jest.config.cjs picks the mode, and
// test/unit/spec-runners.test.ts fails when a spec is in no runner.

/** Registers a spec's tests inside a describe of its name; `load` requires the spec. */
export function runSpec(name: string, load: () => unknown): void {
  describe(name, () => {
    load();
  });
}
