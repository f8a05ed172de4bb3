import { isPlanName, type Limits, type PlanName } from '../limits/plans';

/**
 * The authorizer's context, as API Gateway hands it to the order handlers in
 * `requestContext.authorizer`. Values travel as strings, numbers or booleans.
 */
export interface AuthorizerContext {
  keyId: string;
  plan: PlanName;
  perMinute: number;
  perDay: number;
}

export interface CallerIdentity {
  keyId: string;
  plan: PlanName;
  limits: Limits;
}

function positiveInteger(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The caller from the authorizer context, or undefined when it is absent or malformed. */
export function callerFromAuthorizerContext(context: Record<string, unknown> | null | undefined): CallerIdentity | undefined {
  if (!context) return undefined;
  const { keyId, plan } = context;
  const perMinute = positiveInteger(context.perMinute);
  const perDay = positiveInteger(context.perDay);
  if (typeof keyId !== 'string' || !isPlanName(plan) || perMinute === undefined || perDay === undefined) {
    return undefined;
  }
  return { keyId, plan, limits: { perMinute, perDay } };
}
