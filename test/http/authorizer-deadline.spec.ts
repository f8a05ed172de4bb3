// The authorizer's key read is bounded by the authorizer's own timeout (lib/contract/deployment.ts),
// through HTTP on a virtual clock (test/support/held-writes-stack.ts): a key lookup whose reply
// comes later than the function may run is given up before Lambda would stop the function, and the
// authorizer fails as itself (its failure line, which the authorizer-failure alarm counts), so API
// Gateway answers AUTHORIZER_FAILURE, the 503 Error body, rather than after a Lambda timeout.
import { logger } from '../../lib/commons/logger';
import { FUNCTIONS } from '../../lib/contract/deployment';
import { AUTHORIZER_FAILED_MESSAGE } from '../../lib/edge/authorizer';
import { KeyReadTooSlowError } from '../../lib/edge/authorizer-handler';
import { expectUnavailable } from '../support/fault-expectations';
import { HELD_START as START, requestWithHeldWrites } from '../support/held-writes-stack';

const AUTHORIZER_TIMEOUT_MS = FUNCTIONS.authorizer.timeoutSeconds * 1000;

test("a key read slower than the authorizer's timeout: 503 before the function's deadline, logged as the authorizer's failure", async () => {
  const failures = jest.spyOn(logger, 'error');
  try {
    // The first DynamoDB call is the authorizer's key read: its reply comes after the function's timeout.
    const outcome = await requestWithHeldWrites(
      'GET',
      '/v1/store/orders',
      () => undefined,
      (n) => (n === 1 ? 2 * AUTHORIZER_TIMEOUT_MS : 0),
    );
    expectUnavailable(outcome.response, false);
    expect(outcome.answeredAt - START).toBeLessThan(AUTHORIZER_TIMEOUT_MS);
    const logged = failures.mock.calls.filter(([message]) => message === AUTHORIZER_FAILED_MESSAGE);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.[1]).toMatchObject({ error: expect.any(KeyReadTooSlowError) });
  } finally {
    failures.mockRestore();
  }
}, 60_000);
