import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import type { Deadline } from '../commons/deadline';
import { bearerToken } from '../core/access/key-format';
import { authenticateKey, type Authentication, type KeyRefusalCause } from '../stores/key-service';
import type { ApiKeysRepository } from '../stores/api-keys';
import { callerContext } from '../core/access/caller';
import { scopeResources, wholeStageResource } from '../core/access/scope-policy';

/** API Gateway turns exactly this error message into its 401 UNAUTHORIZED gateway response. */
export const UNAUTHORIZED_MESSAGE = 'Unauthorized';

/** A refused key: API Gateway answers 401 for the message; the cause is for metrics and logs. */
export class KeyRefusedError extends Error {
  override readonly name = 'KeyRefusedError';
  constructor(readonly refusal: KeyRefusalCause) {
    super(UNAUTHORIZED_MESSAGE);
  }
}

/**
 * The message of the error line the authorizer logs when it could not judge a key (as opposed to
 * refusing one); the deployed stack counts these lines to alarm on.
 */
export const AUTHORIZER_FAILED_MESSAGE = 'authorizer failed';

/** The messages of the lines the authorizer logs for each key it judged: one of them per decision. */
export const KEY_ACCEPTED_MESSAGE = 'key accepted';
export const KEY_REFUSED_MESSAGE = 'key refused';

/**
 * Set (true) on the TOKEN events the release hook sends the new version (infra/release-hook/checks.ts);
 * API Gateway's events never carry it. Their decisions are logged as RELEASE_CHECK_MESSAGE lines,
 * not as key accepted/refused ones, and counted in no metric: the refusal-rate rollback alarm and
 * the refusal metric are about callers, and the hook's synthetic keys and the stage's canary key
 * are none (the hook reports its own verdict).
 */
export const RELEASE_CHECK_FLAG = 'releaseCheck';
export const RELEASE_CHECK_MESSAGE = 'release check judged a key';

/** Whether an authorizer event is the release hook's. */
export function isReleaseCheck(event: object): boolean {
  return (event as Record<string, unknown>)[RELEASE_CHECK_FLAG] === true;
}

/**
 * The key of those lines, and of the failure line, naming the function version that ran (Lambda's `ExecutedVersion`), so a
 * release's rollback alarms count the new version's refusals and failures alone.
 */
export const AUTHORIZER_VERSION_KEY = 'executedVersion';

/**
 * The Allow policy of a full-access key covers every method and path of the stage, because API
 * Gateway caches the answer per token: a policy naming only the first route would deny the others
 * from the cache.
 */
export function wholeApiResource(methodArn: string): string {
  return wholeStageResource(methodArn);
}

/** The decision on one token; the key read carries `deadline` (the authorizer's own). */
export async function authorizeToken(
  keys: ApiKeysRepository,
  event: Pick<APIGatewayTokenAuthorizerEvent, 'authorizationToken' | 'methodArn'>,
  deadline?: Deadline,
): Promise<APIGatewayAuthorizerResult & { context: Record<string, string | number> }> {
  const token = bearerToken(event.authorizationToken);
  const outcome: Authentication | { refused: 'missing' } =
    token === undefined ? { refused: 'missing' } : await authenticateKey(keys, token, deadline);
  if ('refused' in outcome) throw new KeyRefusedError(outcome.refused);
  const { caller } = outcome;
  return {
    principalId: caller.keyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: scopeResources(event.methodArn, caller.scope) },
      ],
    },
    usageIdentifierKey: caller.usageIdentifier,
    // The scope rides along for the logs and the handlers; the policy is what enforces it.
    context: { ...callerContext(caller), scope: caller.scope },
  };
}
