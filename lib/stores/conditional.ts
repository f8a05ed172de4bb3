// Conditional writes: a failed condition is an expected answer, not an error, so it comes back as
// a result carrying the item the server found, decoded exactly as a normal read decodes it.
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type Item = Record<string, unknown>;

/**
 * What a conditional write came to. `found` is the item as it stood when the condition failed,
 * when the server returned it (DynamoDB does with `ReturnValuesOnConditionCheckFailure: ALL_OLD`;
 * the embedded server never does).
 */
export type ConditionalOutcome<T> = { applied: true; output: T } | { applied: false; found: Item | undefined };

/**
 * How far a failed condition's answer can be trusted. DynamoDB asked for ALL_OLD returns the item,
 * so no item means there is none; the embedded server returns none either way, so the caller must
 * read. Deployed functions say so; the local stack and tests keep the read.
 */
export interface ConditionFailureItems {
  /** True only where the server returns the old item with a failed condition (real DynamoDB). */
  returnedByServer: boolean;
}

export const ON_DYNAMODB: ConditionFailureItems = { returnedByServer: true };
export const ON_EMBEDDED_SERVER: ConditionFailureItems = { returnedByServer: false };

/** Structural, not `instanceof`: the error may come from another realm (a VM context under jest). */
export function isConditionFailure(error: unknown): error is { name: string; Item?: Record<string, AttributeValue> } {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { name?: unknown }).name === 'ConditionalCheckFailedException'
  );
}

/** Runs one conditional write; a failed condition becomes `{ applied: false }`, anything else is thrown. */
export async function conditionalWrite<T>(write: () => Promise<T>): Promise<ConditionalOutcome<T>> {
  try {
    return { applied: true, output: await write() };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { applied: false, found: error.Item ? unmarshall(error.Item, { wrapNumbers: true }) : undefined };
  }
}
