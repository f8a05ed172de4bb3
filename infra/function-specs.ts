import { Duration } from 'aws-cdk-lib';
import { FUNCTIONS, type FunctionId, type FunctionSettings } from './functions';
import { STREAMING_INTEGRATION_HEADROOM_SECONDS } from './list-budget';

/** API Gateway's default (and, for buffered responses, maximum) integration timeout. */
export const BUFFERED_INTEGRATION_TIMEOUT = Duration.seconds(29);

/**
 * Headroom between a streaming function's own timeout and the integration timeout, so the
 * function always stops first.
 */
export const STREAMING_INTEGRATION_HEADROOM = Duration.seconds(STREAMING_INTEGRATION_HEADROOM_SECONDS);

/** The CDK view of infra/functions.ts. */
export function functionTimeout(id: FunctionId): Duration {
  return Duration.seconds(FUNCTIONS[id].timeoutSeconds);
}

export const FUNCTION_SPECS: Record<FunctionId, FunctionSettings> = FUNCTIONS;
