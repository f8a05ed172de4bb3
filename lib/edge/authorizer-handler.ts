import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import type { ApiKeysRepository } from '../stores/api-keys';
import {
  AUTHORIZER_FAILED_MESSAGE,
  AUTHORIZER_VERSION_KEY,
  authorizeToken,
  isReleaseCheck,
  KEY_ACCEPTED_MESSAGE,
  KEY_REFUSED_MESSAGE,
  KeyRefusedError,
  RELEASE_CHECK_MESSAGE,
} from './authorizer';
import { logger } from '../commons/logger';
import { DEADLINE_MARGIN_MS, timedDeadline } from '../commons/deadline';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { businessMetrics } from './metrics';

export interface AuthorizerDeps {
  keys: ApiKeysRepository;
  /** The deadline's timer; the real one unless a test runs on a virtual clock. */
  timers?: Timers;
}

/** The key could not be read before the authorizer had to answer: a clear failure, not Lambda's timeout. */
export class KeyReadTooSlowError extends Error {
  override readonly name = 'KeyReadTooSlowError';
  constructor(cause: unknown) {
    super("The API key could not be read before the authorizer's deadline", { cause });
  }
}

/**
 * The TOKEN authorizer. A refused key throws `Unauthorized` (API Gateway's 401); any other
 * failure (DynamoDB unreachable) propagates, which API Gateway answers as AUTHORIZER_FAILURE.
 * The key read carries the invocation's deadline, DEADLINE_MARGIN_MS before its timeout
 * (lib/contract/deployment.ts): a read still unanswered then (the SDK's retries of a slow DynamoDB
 * outlast the timeout) is given up, and the failure is thrown and logged as one (KeyReadTooSlowError,
 * counted by the authorizer-failure alarm) rather than left to Lambda's timeout, which logs none.
 * The event is never logged: it carries the key. Each decision's line names the version that made
 * it, so a release's rollback alarm sees the new version's refusal rate; the release hook's own
 * checks are logged apart and counted nowhere (RELEASE_CHECK_FLAG).
 */
export function makeAuthorizerHandler(deps: AuthorizerDeps) {
  const timers = deps.timers ?? REAL_TIMERS;
  return middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event, context) => {
      const check = isReleaseCheck(event);
      const version = { [AUTHORIZER_VERSION_KEY]: context.functionVersion };
      const remaining = context.getRemainingTimeInMillis?.();
      const deadline =
        remaining === undefined ? undefined : timedDeadline(timers, Math.max(0, remaining - DEADLINE_MARGIN_MS), 0);
      try {
        const result = await authorizeToken(deps.keys, event, deadline).catch((error: unknown) => {
          throw deadline?.signal.aborted ? new KeyReadTooSlowError(error) : error;
        });
        if (check) logger.info(RELEASE_CHECK_MESSAGE, { accepted: true, keyId: result.principalId, ...version });
        else logger.info(KEY_ACCEPTED_MESSAGE, { keyId: result.principalId, ...version });
        return result;
      } catch (error) {
        if (error instanceof KeyRefusedError && check) {
          logger.info(RELEASE_CHECK_MESSAGE, { accepted: false, cause: error.refusal, ...version });
        } else if (error instanceof KeyRefusedError) {
          logger.info(KEY_REFUSED_MESSAGE, { cause: error.refusal, ...version });
          businessMetrics.authorizerRefusal(error.refusal);
        } else {
          logger.error(AUTHORIZER_FAILED_MESSAGE, {
            [AUTHORIZER_VERSION_KEY]: context.functionVersion,
            error: error as Error,
          });
        }
        throw error;
      } finally {
        deadline?.stop();
        deadline?.answered();
      }
    });
}
