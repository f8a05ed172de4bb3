// What a key's scope lets it call, as the resources of the authorizer's Allow policy. API Gateway
// caches the policy per token, so it names every route the scope may call, never only the
// requested one; the gateway (deployed or local) denies the rest as ACCESS_DENIED, the 403.
import { SCOPE_METHODS, type KeyScope } from '../../contract/scopes';

/** Every method and path of the stage a method ARN (`arn:...:api/stage/METHOD/path`) names. */
export function wholeStageResource(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}

/** The resources a key of this scope may invoke on the stage the request's method ARN names. */
export function scopeResources(methodArn: string, scope: KeyScope): string | string[] {
  const whole = wholeStageResource(methodArn);
  const methods = SCOPE_METHODS[scope];
  if (methods === undefined) return whole;
  const resources = methods.map((method) => whole.replace(/\*$/, `${method}/*`));
  // One resource is written as a string, as the policy of a full key always was.
  return resources.length === 1 ? (resources[0] as string) : resources;
}
