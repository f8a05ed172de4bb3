// The caller a valid key stands for, and how it travels from the authorizer to the handlers in
// `requestContext.authorizer`, where API Gateway passes only flat string, number or boolean values.

import { isPlanName, type Limits, type PlanName } from '../../contract/plans';

/** Who is calling: the key's id, its plan and the limits it is held to. */
export interface Caller {
  keyId: string;
  plan: PlanName;
  limits: Limits;
}

/** The caller as the authorizer's context: flat, because API Gateway passes nothing nested. */
export function callerContext(caller: Caller): Record<string, string | number> {
  return { keyId: caller.keyId, plan: caller.plan, perMinute: caller.limits.perMinute, perDay: caller.limits.perDay };
}

function positiveInteger(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * The caller from the context as the handlers receive it (numbers may arrive as strings), or
 * undefined when it is absent or malformed.
 */
export function callerFromAuthorizerContext(context: Record<string, unknown> | null | undefined): Caller | undefined {
  if (!context) return undefined;
  const { keyId, plan } = context;
  const perMinute = positiveInteger(context.perMinute);
  const perDay = positiveInteger(context.perDay);
  if (typeof keyId !== 'string' || !isPlanName(plan) || perMinute === undefined || perDay === undefined) {
    return undefined;
  }
  return { keyId, plan, limits: { perMinute, perDay } };
}
