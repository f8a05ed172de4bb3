import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import type { ApiKeysRepository } from '../stores/api-keys';
import {
  AUTHORIZER_FAILED_MESSAGE,
  AUTHORIZER_VERSION_KEY,
  authorizeToken,
  KEY_ACCEPTED_MESSAGE,
  KEY_REFUSED_MESSAGE,
  KeyRefusedError,
} from './authorizer';
import { logger } from '../commons/logger';
import { businessMetrics } from './metrics';

/**
 * The TOKEN authorizer. A refused key throws `Unauthorized` (API Gateway's 401); any other
 * failure (DynamoDB unreachable) propagates, which API Gateway answers as AUTHORIZER_FAILURE.
 * The event is never logged: it carries the key. Each decision's line names the version that made
 * it, so a release's rollback alarm sees the new version's refusal rate.
 */
export function makeAuthorizerHandler(deps: { keys: ApiKeysRepository }) {
  return middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event, context) => {
      try {
        const result = await authorizeToken(deps.keys, event);
        logger.info(KEY_ACCEPTED_MESSAGE, {
          keyId: result.principalId,
          [AUTHORIZER_VERSION_KEY]: context.functionVersion,
        });
        return result;
      } catch (error) {
        if (error instanceof KeyRefusedError) {
          logger.info(KEY_REFUSED_MESSAGE, { cause: error.refusal, [AUTHORIZER_VERSION_KEY]: context.functionVersion });
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
