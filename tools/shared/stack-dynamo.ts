// Where a running local stack keeps its data: its DynamoDB endpoint and table names. npm start
// publishes them on a local-only route of its gateway (tools/local/stack-dynamo-route.ts), and the
// smoke command reads them there, so the keys it makes go into that stack's DynamoDB and no other.

import { TABLES, type TableId, type TableNames } from '../../lib/contract/tables';
import { dynamoEndpoint } from './local-config';

/** Under the base path, beside the OpenAPI document; not an API route (no key, not in the document). */
export const STACK_DYNAMO_PATH = '/local/dynamodb';

export interface StackDynamo {
  endpoint: string;
  tables: TableNames;
}

/** The route's JSON read back, or undefined when it is not what a local stack publishes. */
export function parseStackDynamo(text: string): StackDynamo | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { endpoint, tables } = body as { endpoint?: unknown; tables?: unknown };
  if (typeof endpoint !== 'string' || typeof tables !== 'object' || tables === null) return undefined;
  const names: Partial<TableNames> = {};
  for (const id of Object.keys(TABLES) as TableId[]) {
    const name = (tables as Record<string, unknown>)[id];
    if (typeof name !== 'string' || name === '') return undefined;
    names[id] = name;
  }
  try {
    return { endpoint: dynamoEndpoint(endpoint, 'endpoint'), tables: names as TableNames };
  } catch {
    return undefined;
  }
}
