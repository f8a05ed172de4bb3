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
import { businessMetrics } from './metrics';

/**
 * The TOKEN authorizer. A refused key throws `Unauthorized` (API Gateway's 401); any other
 * failure (DynamoDB unreachable) propagates, which API Gateway answers as AUTHORIZER_FAILURE.
 * The event is never logged: it carries the key. Each decision's line names the version that made
 * it, so a release's rollback alarm sees the new version's refusal rate; the release hook's own
 * checks are logged apart and counted nowhere (RELEASE_CHECK_FLAG).
 */
export function makeAuthorizerHandler(deps: { keys: ApiKeysRepository }) {
  return middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event, context) => {
      const check = isReleaseCheck(event);
      const version = { [AUTHORIZER_VERSION_KEY]: context.functionVersion };
      try {
        const result = await authorizeToken(deps.keys, event);
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
      }
    });
}
