import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import type { ApiKeysRepository } from '../stores/api-keys';
import { AUTHORIZER_FAILED_MESSAGE, AUTHORIZER_VERSION_KEY, authorizeToken, KeyRefusedError } from './authorizer';
import { logger } from '../commons/logger';
import { businessMetrics } from './metrics';

/**
 * The TOKEN authorizer. A refused key throws `Unauthorized` (API Gateway's 401); any other
 * failure (DynamoDB unreachable) propagates, which API Gateway answers as AUTHORIZER_FAILURE.
 * The event is never logged: it carries the key.
 */
export function makeAuthorizerHandler(deps: { keys: ApiKeysRepository }) {
  return middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event, context) => {
      try {
        const result = await authorizeToken(deps.keys, event);
        logger.info('key accepted', { keyId: result.principalId });
        return result;
      } catch (error) {
        if (error instanceof KeyRefusedError) {
          logger.info('key refused', { cause: error.refusal });
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
