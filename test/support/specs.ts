// Runs spec files inside one jest test file, each in a describe block of its own name, so its
// hooks (beforeAll, beforeEach, afterAll) apply to its own tests only. Every jest test file loads
// its modules afresh (the AWS SDK, middy, Powertools and the local stack: about 0.6 s of CPU);
// grouped, the specs of a runner load them once. A spec that changes process-wide state (the
// environment Powertools reads, the console) stays a test file of its own.
import * as path from 'node:path';

export function runSpecs(dir: string, names: readonly string[]): void {
  for (const name of names) {
    describe(name, () => {
      // A require, not an import: the spec's tests must be registered inside this describe.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(path.join(dir, `${name}.spec`));
    });
  }
}
