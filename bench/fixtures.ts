import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiKeysRepository } from '../lib/keys/repository';
import { createApiKey } from '../lib/keys/service';
import { createTables, tableNamesWithPrefix } from '../infra/local/create-tables';
import type { Order } from '../lib/orders/order';
import type { OrdersRepository } from '../lib/orders/repository';
import { MAX_CUSTOM_LIMITS } from '../lib/limits/plans';
import type { AuthorizerContext } from '../lib/keys/context';
import type { TableNames } from '../lib/aws/tables';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Far above any id a test or demo uses, and int64-sized like real ones. */
const ID_BASE = 7_000_000_000_000_000n;

/** Fresh, uniquely named tables on the server the client talks to. */
export async function freshTables(client: DynamoDBClient, label: string): Promise<TableNames> {
  const names = tableNamesWithPrefix(`bench-${label}-${randomUUID().slice(0, 8)}`);
  await createTables(client, names);
  return names;
}

/** Pending orders with every field set, so each item is as large as a real one. */
export function pendingOrders(count: number, firstIndex = 0): Order[] {
  return Array.from({ length: count }, (_, i) => {
    const n = firstIndex + i;
    return {
      id: String(ID_BASE + BigInt(n)),
      petId: String(100_000 + (n % 5_000)),
      quantity: 1 + (n % 9),
      shipDate: '2026-11-20T10:00:00.000Z',
      complete: false,
      status: 'pending',
    };
  });
}

export const orderIdAt = (index: number): string => String(ID_BASE + BigInt(index));

/**
 * Seeds in parallel batches: dynalite serves writes faster with a few requests in flight.
 * Progress goes to stderr so a long seed is visibly alive.
 */
export async function seedOrders(repo: OrdersRepository, count: number, label: string, firstIndex = 0): Promise<void> {
  const chunk = 5_000;
  const lanes = 6;
  let next = 0;
  let done = 0;
  let reported = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const start = next;
      next += chunk;
      const size = Math.min(chunk, count - start);
      await repo.putMany(pendingOrders(size, firstIndex + start));
      done += size;
      if (count >= 50_000 && done - reported >= 25_000) {
        reported = done;
        process.stderr.write(`  seeding ${label}: ${done}/${count}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/** An enterprise key with the highest custom limits, so the limiter admits everything it is asked. */
export async function unlimitedKey(doc: DynamoDBDocumentClient, tables: TableNames): Promise<{ key: string; context: AuthorizerContext }> {
  const { key, record } = await createApiKey(new ApiKeysRepository(doc, tables.apiKeys), {
    plan: 'enterprise',
    name: 'bench',
    limits: MAX_CUSTOM_LIMITS,
  });
  return { key, context: { keyId: record.id, plan: 'enterprise', ...MAX_CUSTOM_LIMITS } };
}

/**
 * A proxy event as the gateway passes it after the authorizer; only the fields the handlers read
 * are set, the rest of API Gateway's request context does not reach them.
 */
export function proxyEvent(method: string, path: string, caller: AuthorizerContext, orderId?: string): APIGatewayProxyEvent {
  return {
    resource: orderId === undefined ? '/store/orders' : '/store/orders/{orderId}',
    path,
    httpMethod: method,
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: orderId === undefined ? null : { orderId },
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId: randomUUID(),
      authorizer: { principalId: caller.keyId, ...caller },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}
