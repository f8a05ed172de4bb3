import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsClock } from '../../lib/stores/aws-clock';
import { ApiKeysRepository, type ApiKeyRecord } from '../../lib/stores/api-keys';
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { optionalEnv } from '../../lib/commons/env';
import type { PlanName } from '../../lib/contract/plans';
import { OrdersRepository } from '../../lib/stores/orders';
import { PetsRepository } from '../../lib/stores/pets';
import { StoreGrowth } from '../../lib/stores/store-growth';
import { RateLimiter } from '../../lib/stores/rate-limiter';
import { TABLE_ENV_VARS, TABLES, type TableId, type TableNames } from '../../lib/contract/tables';
import { localDynamoEndpoint, LOCAL_TABLES } from '../shared/local-config';
import { checkedSetting } from '../shared/errors';
import type { StackDynamo } from '../shared/stack-state';

/** The API Gateway side of a deployed stage's keys (the local gateway authorizes from the table alone). */
export interface GatewayKeys {
  /** Creates the gateway API key of a stored key, attaches it to its plan's usage plan, returns its id. */
  register(record: ApiKeyRecord): Promise<string>;
  /** Deletes a gateway API key and its usage-plan binding; one already gone counts as deleted. */
  remove(gatewayKeyId: string, plan: PlanName): Promise<void>;
  /** The ids of the gateway API keys named so (a key's name is its record's id). */
  named(name: string): Promise<string[]>;
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
  gateway?: GatewayKeys;
  close(): void;
}

export interface TablesTargetOptions {
  doc: DynamoDBDocumentClient;
  /** A client that makes one attempt per call, for the orders' stamped writes; `doc`'s own when absent. */
  writer?: DynamoDBClient;
  /** The tables the admin command uses; of the rate-limit items it reads them and marks revocations. */
  names: TableNames;
  label: string;
  unreachableHint: string;
  gateway?: GatewayKeys;
  close?: () => void;
}

export function tablesTarget(options: TablesTargetOptions): AdminTarget {
  return {
    label: options.label,
    unreachableHint: options.unreachableHint,
    keys: new ApiKeysRepository(options.doc, options.names.apiKeys),
    orders: new OrdersRepository(options.doc, options.names.orders, {
      // Stamped on AWS's clock, not the operator's (lib/stores/aws-clock.ts), one attempt per send.
      ...(options.writer ? { stampClock: awsClock(options.writer), writer: createDocumentClient(options.writer) } : {}),
      // The orders an import adds count towards the listing's size bound at once.
      growth: new StoreGrowth(options.doc, options.names.rateLimits),
    }),
    pets: new PetsRepository(options.doc, options.names.pets),
    limiter: new RateLimiter(options.doc, options.names.rateLimits),
    ...(options.gateway ? { gateway: options.gateway } : {}),
    close: options.close ?? (() => undefined),
  };
}

/** Table names from their environment variables (lib/contract/tables.ts), falling back to the local stack's. */
function tableNamesFromEnv(env: NodeJS.ProcessEnv = process.env): TableNames {
  const names = { ...LOCAL_TABLES };
  for (const id of Object.keys(TABLES) as TableId[]) {
    names[id] = optionalEnv(TABLES[id].envVar, env) ?? LOCAL_TABLES[id];
  }
  return names;
}

/** The tables at a local stack's DynamoDB endpoint; the hint says what to do when it does not answer. */
function endpointTarget(endpoint: string, names: TableNames, unreachableHint: string): AdminTarget {
  const client = createDynamoClient({ endpoint });
  const writer = createDynamoClient({ endpoint, maxAttempts: 1 });
  return tablesTarget({
    doc: createDocumentClient(client),
    writer,
    names,
    label: `the local stack (DynamoDB at ${endpoint})`,
    unreachableHint,
    close: () => {
      client.destroy();
      writer.destroy();
    },
  });
}

/**
 * The running local stack by default, on DYNAMODB_PORT as npm start is; DYNAMODB_ENDPOINT and the
 * table variables point elsewhere.
 */
export function localTarget(env: NodeJS.ProcessEnv = process.env): AdminTarget {
  const endpoint = checkedSetting(() => localDynamoEndpoint(env));
  return endpointTarget(
    endpoint,
    tableNamesFromEnv(env),
    optionalEnv('DYNAMODB_ENDPOINT', env) === undefined
      ? `The local stack may not be running with its DynamoDB at ${endpoint}: start it with \`npm start\` in ` +
          'another terminal, or set DYNAMODB_PORT to the port its banner shows.'
      : `Check DYNAMODB_ENDPOINT and the table name variables (${TABLE_ENV_VARS.join(', ')}).`,
  );
}

/** The DynamoDB and tables a local stack published (the smoke command's keys and orders go there). */
export function stackTarget({ endpoint, tables }: StackDynamo): AdminTarget {
  const hint = `The local stack published its DynamoDB at ${endpoint}, and it does not answer: restart npm start.`;
  return endpointTarget(endpoint, tables, hint);
}
