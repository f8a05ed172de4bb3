import { UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoClient } from '../lib/aws/dynamo';
import { parseOrderId } from '../lib/orders/order-id';
import { makeCancelOrderHandler } from '../lib/orders/handlers';
import { OrdersRepository } from '../lib/orders/repository';
import { RateLimiter } from '../lib/limits/limiter';
import { lambdaContext } from '../infra/local/proxy-event';
import type { AuthorizerContext } from '../lib/keys/context';
import { freshTables, orderIdAt, proxyEvent, seedOrders, unlimitedKey } from './fixtures';
import { median, rotations } from './stats';

export type OverheadVariant = 'handler' | 'bare' | 'bare + limiter' | 'limiter alone';

export interface OverheadFigures {
  iterations: number;
  medianUs: Record<OverheadVariant, number>;
  /** cancelOrder's stack with a repository and limiter that answer at once: middy, logger, headers. */
  stackOnlyUs: number;
}

const VARIANTS: readonly OverheadVariant[] = ['handler', 'bare', 'bare + limiter', 'limiter alone'];

/** The input of the UpdateItem the repository sends for a cancel, as the document client takes it. */
async function captureCancelInput(doc: DynamoDBDocumentClient, orders: OrdersRepository, orderId: string): Promise<UpdateCommandInput> {
  let captured: UpdateCommandInput | undefined;
  const name = 'benchCaptureCancel';
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'UpdateItemCommand') captured ??= { ...(args.input as UpdateCommandInput) };
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await orders.cancel(orderId);
  } finally {
    doc.middlewareStack.remove(name);
  }
  if (!captured) throw new Error('OrdersRepository.cancel sent no UpdateItem');
  return captured;
}

/**
 * cancelOrder's full stack against bare functions making the same calls, on pending orders of
 * their own so every variant does the successful conditional update, interleaved call by call.
 */
export async function measureHandlerOverhead(endpoint: string, iterations: number): Promise<OverheadFigures> {
  const client = createDynamoClient({ endpoint });
  const doc = createDocumentClient(client);
  const tables = await freshTables(client, 'overhead');
  const warmup = 50;
  const perVariant = iterations + warmup;
  // One more than the variants use: the order whose cancel is captured for the bare variant.
  await seedOrders(new OrdersRepository(doc, tables.orders), perVariant * VARIANTS.length + 1, 'overhead');
  const { context: caller } = await unlimitedKey(doc, tables);
  const limiter = new RateLimiter(doc, tables.rateLimits);
  const handler = makeCancelOrderHandler({ orders: new OrdersRepository(doc, tables.orders), limiter });

  // Exactly the conditional update OrdersRepository.cancel sends, replayed with nothing around it.
  const cancelInput = await captureCancelInput(doc, new OrdersRepository(doc, tables.orders), orderIdAt(perVariant * VARIANTS.length));
  const bareCancel = async (orderId: string) => {
    const id = parseOrderId(orderId);
    await doc.send(new UpdateCommand({ ...cancelInput, Key: { id: BigInt(id) } }));
    return { statusCode: 204, body: '' };
  };
  const calls: Record<OverheadVariant, (orderId: string) => Promise<unknown>> = {
    handler: async (orderId) => {
      const result = await handler(proxyEvent('DELETE', `/store/orders/${orderId}`, caller, orderId), lambdaContext('cancel-order'));
      if (result.statusCode !== 204) throw new Error(`cancelOrder answered ${result.statusCode}`);
    },
    bare: bareCancel,
    'bare + limiter': async (orderId) => {
      await limiter.admit(caller.keyId, { perMinute: caller.perMinute, perDay: caller.perDay });
      return bareCancel(orderId);
    },
    'limiter alone': () => limiter.admit(caller.keyId, { perMinute: caller.perMinute, perDay: caller.perDay }),
  };

  const samples = new Map<OverheadVariant, number[]>(VARIANTS.map((v) => [v, []]));
  for (let i = 0; i < perVariant; i++) {
    for (const variant of rotations(VARIANTS, i)) {
      const orderId = orderIdAt(VARIANTS.indexOf(variant) * perVariant + i);
      const started = performance.now();
      await calls[variant](orderId);
      const us = (performance.now() - started) * 1000;
      if (i >= warmup) samples.get(variant)?.push(us);
    }
  }
  client.destroy();
  const medianUs = Object.fromEntries(VARIANTS.map((v) => [v, median(samples.get(v) ?? [])])) as Record<OverheadVariant, number>;
  return { iterations, medianUs, stackOnlyUs: await stackOnlyUs(caller, iterations * 2) };
}

/** The handler's own CPU per call, without any DynamoDB time to hide it. */
async function stackOnlyUs(caller: AuthorizerContext, iterations: number): Promise<number> {
  const handler = makeCancelOrderHandler({
    orders: { cancel: async () => undefined, scanPages: () => ({ async *[Symbol.asyncIterator]() {} }) },
    limiter: { admit: async () => ({ admitted: true, headers: { limit: caller.perMinute, remaining: caller.perMinute - 1, resetAt: 0 } }) },
  });
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const orderId = orderIdAt(i);
    const started = performance.now();
    await handler(proxyEvent('DELETE', `/store/orders/${orderId}`, caller, orderId), lambdaContext('cancel-order'));
    samples.push((performance.now() - started) * 1000);
  }
  return median(samples.slice(Math.min(100, iterations / 10)));
}
