import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { bearerToken } from './format';
import { authenticate } from './service';
import type { ApiKeysRepository } from './repository';
import type { AuthorizerContext } from './context';

/** API Gateway turns exactly this error message into its 401 UNAUTHORIZED gateway response. */
export const UNAUTHORIZED_MESSAGE = 'Unauthorized';

/**
 * The Allow policy covers every method and path of the stage, because API Gateway caches the
 * answer per token: a policy naming only the first route would deny the others from the cache.
 */
export function wholeApiResource(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}

export async function authorizeToken(
  keys: ApiKeysRepository,
  event: Pick<APIGatewayTokenAuthorizerEvent, 'authorizationToken' | 'methodArn'>,
): Promise<APIGatewayAuthorizerResult & { context: AuthorizerContext & Record<string, string | number> }> {
  const token = bearerToken(event.authorizationToken);
  const principal = token === undefined ? undefined : await authenticate(keys, token);
  if (!principal) throw new Error(UNAUTHORIZED_MESSAGE);
  return {
    principalId: principal.keyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiResource(event.methodArn) }],
    },
    usageIdentifierKey: principal.usageIdentifier,
    context: {
      keyId: principal.keyId,
      plan: principal.plan,
      perMinute: principal.limits.perMinute,
      perDay: principal.limits.perDay,
    },
  };
}
