import type { ApiKeyRecord, ApiKeysRepository } from '../../lib/stores/api-keys';
import { optionalEnv } from '../../lib/commons/env';
import type { PlanName } from '../../lib/contract/plans';
import type { OrdersRepository } from '../../lib/stores/orders';
import type { PetsRepository } from '../../lib/stores/pets';
import type { RateLimiter } from '../../lib/stores/rate-limiter';
import { storesFor } from '../../lib/root/stores';
import { closeClients, tableName, type Wiring } from '../../lib/root/wiring';
import { TABLE_ENV_VARS, TABLES, type TableId, type TableNames } from '../../lib/contract/tables';
import { localDynamoEndpoint, LOCAL_TABLES } from '../shared/local-config';
import { checkedSetting } from '../shared/errors';
import { runningStack, type StackDynamo, type StackState } from '../shared/stack-state';
import { CheckedAwsClock, givenClock, type ToolClock } from '../shared/aws-time';
import type { WebhookEndpointsRepository } from '../../lib/stores/webhook-endpoints';
import type { WebhookDeliveriesRepository } from '../../lib/stores/webhook-deliveries';
import type { OrderPages } from '../../lib/stores/order-pages';
import type { DeliveryQueue } from '../../lib/stores/webhook-queue';
import { deliveryQueueOf } from '../../lib/root/stores';
import type { DestinationCheck } from '../../lib/stores/webhook-destinations';
import { DEPLOYED_RULES, LOCAL_STACK_RULES } from '../../lib/core/webhooks/url-rules';

/** The API Gateway side of a deployed stage's keys (the local gateway authorizes from the table alone). */
export interface GatewayKeys {
  /** Creates the gateway API key of a stored key, attaches it to its plan's usage plan, returns its id. */
  register(record: ApiKeyRecord): Promise<string>;
  /** Deletes a gateway API key and its usage-plan binding; one already gone counts as deleted. */
  remove(gatewayKeyId: string, plan: PlanName): Promise<void>;
  /** Puts a gateway API key in its plan's usage plan: true, or false when it was in it already. */
  bind(gatewayKeyId: string, plan: PlanName): Promise<boolean>;
  /** The ids of the gateway API keys named so (a key's name is its record's id). */
  named(name: string): Promise<string[]>;
}

/** A deployed stage's release canary key secret, which its stack output names. */
export interface CanaryKeySecret {
  arn: string;
  read(): Promise<string>;
  /** Makes `key` the secret's current value. */
  store(key: string): Promise<void>;
}

/** What a command works on: the local stack (or tables named by the environment), or a deployed stage. */
export interface AdminTarget {
  /** For messages, e.g. "the local stack (DynamoDB at http://127.0.0.1:8000)". */
  label: string;
  /** Said after "Cannot reach DynamoDB" or a missing table: what to do about it. */
  unreachableHint: string;
  keys: ApiKeysRepository;
  orders: OrdersRepository;
  /** The deprecated pets route's table: `pets import` writes it. */
  pets: PetsRepository;
  /**
   * `keys usage` reads a key's limiter item; `keys revoke` marks it revoked (markRevoked). The
   * service alone counts in it.
   */
  limiter: Pick<RateLimiter, 'read' | 'markRevoked'>;
  /** AWS's time, which the stores stamp by: read from DynamoDB's replies and checked (shared/aws-time.ts). */
  clock: ToolClock;
  /** The `webhooks` commands' table, and the rules their URLs are checked by (the local stack's allow loopback). */
  webhookEndpoints: WebhookEndpointsRepository;
  webhookDestinations: DestinationCheck;
  /** `webhooks deliveries` reads the deliveries log; `webhooks replay` walks the orders by when they changed. */
  webhookDeliveries: WebhookDeliveriesRepository;
  pages: OrderPages;
  /** Where `webhooks replay` and `webhooks test` queue events: absent when the target has no queue to name. */
  webhookQueue?: DeliveryQueue;
  gateway?: GatewayKeys;
  /** A stage's, when its stack has one (`canary-key create`). */
  canaryKeySecret?: CanaryKeySecret;
  close(): void;
}

/** Where a target's DynamoDB and tables are; its stores are the composition root's (lib/root/stores.ts). */
export type TargetWiring = Pick<Wiring, 'endpoint' | 'region' | 'tables'>;

export interface TablesTargetOptions {
  /** The tables the admin command uses; of the rate-limit items it reads them and marks revocations. */
  wiring: TargetWiring;
  label: string;
  unreachableHint: string;
  gateway?: GatewayKeys;
  canaryKeySecret?: CanaryKeySecret;
  close?: () => void;
  /** A clock taken as AWS's, unchecked: a test's, whose embedded server runs on this machine's clock. */
  clock?: () => number;
  /** Where webhook endpoints may point: the deployed rules unless given (the local stack's allow loopback). */
  webhookDestinations?: DestinationCheck;
  /** The delivery queue's URL (a stage's output, or a local stack's emulated queue and its endpoint). */
  webhookQueue?: { endpoint?: string; url: string };
}

/**
 * The stores as the service has them: on the root's one-attempt client for the limiter and the
 * orders' stamped writes, on AWS's time read from that client's replies, never the operator's clock.
 */
export function tablesTarget(options: TablesTargetOptions): AdminTarget {
  // A wiring of the target's own, so its clients are made for it and closed with it.
  const checked = new CheckedAwsClock();
  const base: Wiring = { ...options.wiring, ...(options.webhookQueue ? { webhookQueue: options.webhookQueue } : {}) };
  const wiring: Wiring = options.clock
    ? { ...base, now: options.clock }
    : { ...base, clockOn: (client) => checked.reading(client, tableName(options.wiring, 'apiKeys')) };
  const { keys, orders, pets, limiter, webhookEndpoints, webhookDeliveries, pages } = storesFor(wiring);
  return {
    label: options.label,
    unreachableHint: options.unreachableHint,
    keys,
    orders,
    pets,
    limiter,
    webhookEndpoints,
    webhookDestinations: options.webhookDestinations ?? { rules: DEPLOYED_RULES },
    webhookDeliveries,
    pages,
    ...(options.webhookQueue ? { webhookQueue: deliveryQueueOf(wiring) } : {}),
    clock: options.clock ? givenClock(options.clock) : checked,
    ...(options.gateway ? { gateway: options.gateway } : {}),
    ...(options.canaryKeySecret ? { canaryKeySecret: options.canaryKeySecret } : {}),
    close: () => {
      closeClients(wiring);
      options.close?.();
    },
  };
}

/** Table names from their environment variables (lib/contract/tables.ts), falling back to `base`. */
function tableNamesFromEnv(env: NodeJS.ProcessEnv, base: TableNames = LOCAL_TABLES): TableNames {
  const names = { ...base };
  for (const id of Object.keys(TABLES) as TableId[]) names[id] = optionalEnv(TABLES[id].envVar, env) ?? base[id];
  return names;
}

/** The tables at a local stack's DynamoDB endpoint; the hint says what to do when it does not answer. */
function endpointTarget(
  endpoint: string,
  tables: TableNames,
  unreachableHint: string,
  webhookQueueUrl?: string,
): AdminTarget {
  return tablesTarget({
    wiring: { endpoint, tables },
    label: `the local stack (DynamoDB at ${endpoint})`,
    unreachableHint,
    webhookDestinations: { rules: LOCAL_STACK_RULES },
    ...(webhookQueueUrl ? { webhookQueue: { endpoint: new URL(webhookQueueUrl).origin, url: webhookQueueUrl } } : {}),
  });
}

/**
 * The local stack npm start runs, found by its state file on whatever ports it chose, unless
 * DYNAMODB_PORT or DYNAMODB_ENDPOINT (and the table variables) point elsewhere; else the default port.
 */
export async function localTarget(env: NodeJS.ProcessEnv = process.env): Promise<AdminTarget> {
  const endpoint = checkedSetting(() => localDynamoEndpoint(env));
  const given = ['DYNAMODB_ENDPOINT', 'DYNAMODB_PORT'].find((name) => optionalEnv(name, env) !== undefined);
  const pick = (stack: StackState) => `DYNAMODB_PORT=${new URL(stack.endpoint).port} for ${stack.apiUrl}`;
  const found = given === undefined ? await runningStack(env, pick) : undefined;
  if (found)
    return stackTarget({
      endpoint: found.endpoint,
      tables: tableNamesFromEnv(env, found.tables),
      ...(found.webhookQueueUrl ? { webhookQueueUrl: found.webhookQueueUrl } : {}),
    });
  const start = 'start it with `npm start` in another terminal';
  return endpointTarget(
    endpoint,
    tableNamesFromEnv(env),
    given === 'DYNAMODB_ENDPOINT'
      ? `Check DYNAMODB_ENDPOINT and the table name variables (${TABLE_ENV_VARS.join(', ')}).`
      : given
        ? `The local stack may not be running with its DynamoDB at ${endpoint}: ${start}, or set DYNAMODB_PORT to the port its banner shows.`
        : `No local stack is running: ${start}.`,
  );
}

/** The DynamoDB and tables a local stack published (the smoke command's keys and orders go there). */
export function stackTarget({ endpoint, tables, webhookQueueUrl }: StackDynamo): AdminTarget {
  const hint = `The local stack published its DynamoDB at ${endpoint}, and it does not answer: restart npm start.`;
  return endpointTarget(endpoint, tables, hint, webhookQueueUrl);
}
