// The local stack behind `npm start`: DynamoDB (embedded, or a server of the user's), the tables,
// the demo data when the store is empty, and the local gateway. Mistakes the user can fix
// (a busy port, a --data-dir in use or not a folder, an unreachable endpoint) are StartUsageErrors.

import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { releaseAllSlots } from '../../lib/stores/listings-in-flight';
import { BASE_PATH } from '../../lib/contract/routes';
import { ADDRESS_LIMIT } from '../../lib/contract/address-limit';
import { errorMessage, field, isUnreachable } from '../shared/errors';
import { createLocalApp } from './app';
import { createTables, TableNotReady } from './create-tables';
import { checkAnswersLikeDynamo } from './dynamo-endpoint';
import { docsRoutes, DOCS_PATH, listeningPort, OPENAPI_PATH } from './docs-routes';
import { DEMO_ORDERS, DEMO_PETS } from './demo-content';
import { seedDemoData, storeIsEmpty, workingDemoKeys } from './demo-data';
import { startEmbeddedDynamo } from './embedded-dynamo';
import { everyKthWrite } from './held-calls';
import type { ChangeStream } from './change-stream';
import { DEFAULT_DYNAMODB_PORT, DEFAULT_HOST, LOCAL_TABLES } from '../shared/local-config';
import { StartUsageError, type StartOptions } from './start-args';

export interface LocalStack {
  apiUrl: string;
  dynamoEndpoint: string;
  /** The emulated webhook delivery queue, over SQS's protocol (the admin command's replay and test send to it). */
  webhookQueueUrl: string;
  /** What `npm start` prints once it is up. */
  banner: string[];
  close(): Promise<void>;
}

async function checkDataDir(dir: string): Promise<void> {
  const found = await stat(dir).catch((error: unknown) => {
    if (field(error, 'code') === 'ENOENT') return undefined;
    throw new StartUsageError(`--data-dir ${dir} cannot be read: ${errorMessage(error)}`);
  });
  if (found && !found.isDirectory()) throw new StartUsageError(`--data-dir ${dir} is a file, not a folder`);
}

async function openDynamo(
  options: StartOptions,
): Promise<{ endpoint: string; close(): Promise<void>; stream?: ChangeStream }> {
  if (options.dynamodbEndpoint !== undefined)
    return { endpoint: options.dynamodbEndpoint, close: async () => undefined };
  if (options.dataDir !== undefined) await checkDataDir(options.dataDir);
  try {
    return await startEmbeddedDynamo({
      host: options.host,
      port: options.dynamodbPort,
      dataDir: options.dataDir,
      // No kinder than DynamoDB: index reads lag writes, and writes can arrive late (docs/local-development.md).
      ...(options.indexLagMs ? { indexLag: { maxMs: options.indexLagMs } } : {}),
      ...(options.holdWrites ? { holdWrites: everyKthWrite(options.holdWrites.ms, options.holdWrites.every) } : {}),
      // The orders table's stream, which the sync watch reads as it does on AWS.
      stream: {},
    });
  } catch (error) {
    if (field(error, 'code') !== 'EADDRINUSE') throw hostProblem(error, options) ?? error;
    throw new StartUsageError(
      `DynamoDB port ${options.dynamodbPort} is in use (another npm start?): choose another with --dynamodb-port or DYNAMODB_PORT`,
    );
  }
}

/** A --host that names no address of this machine, as listen reports it. */
function hostProblem(error: unknown, options: StartOptions): StartUsageError | undefined {
  if (!['ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL'].includes(String(field(error, 'code')))) return undefined;
  return new StartUsageError(
    `--host ${options.host} is not an address of this machine: use 127.0.0.1 (the default), 0.0.0.0 or one of its own`,
  );
}

/**
 * Why the store could not be opened, in words the user can act on. dynalite throws its "Database
 * is closed" out of its request handler, so start.ts also passes uncaught exceptions through here.
 */
export function storeProblem(error: unknown, options: StartOptions): Error | undefined {
  if (options.dynamodbEndpoint !== undefined && isUnreachable(error)) {
    return new StartUsageError(
      `Cannot reach DynamoDB at ${options.dynamodbEndpoint} (--dynamodb-endpoint): is the server running?`,
    );
  }
  // LevelDB allows one process per folder; dynalite then answers every request "Database is closed".
  if (error instanceof TableNotReady && options.dynamodbEndpoint !== undefined) {
    return new Error(`${error.message} at ${options.dynamodbEndpoint} (--dynamodb-endpoint)`);
  }
  if (options.dataDir !== undefined && error instanceof Error && /database is (closed|not open)/i.test(error.message)) {
    return new StartUsageError(
      `--data-dir ${options.dataDir} is in use by another npm start (one at a time per folder), or is not a usable folder`,
    );
  }
  return undefined;
}

/** How to run the admin command against this stack, with the variables it needs to find it. */
function adminInvocation(options: StartOptions, endpoint: string): string {
  let variables = '';
  if (options.dynamodbEndpoint !== undefined || options.host !== DEFAULT_HOST)
    variables = `DYNAMODB_ENDPOINT=${endpoint} `;
  // The port bound, not the one asked for: --dynamodb-port 0 asks the system to choose.
  else if (options.dynamodbPort !== DEFAULT_DYNAMODB_PORT) variables = `DYNAMODB_PORT=${new URL(endpoint).port} `;
  return `${variables}npm run --silent admin -- keys list`;
}

/** How late the embedded server is (--index-lag-ms, --hold-writes-ms), in the banner's words. */
function embeddedLag({ indexLagMs, holdWrites }: StartOptions): string[] {
  return [
    indexLagMs ? `indexes up to ${indexLagMs} ms behind writes` : 'indexes without lag',
    ...(holdWrites
      ? [`${holdWrites.every === 1 ? 'every write' : `1 write in ${holdWrites.every}`} held ${holdWrites.ms} ms`]
      : []),
    "the orders table's change stream read by the sync watch and the webhook fan-out",
    'the index-lag canary every minute',
  ];
}

export async function startLocalStack(
  options: StartOptions,
  onAccessLog?: (line: string) => void,
): Promise<LocalStack> {
  const dynamo = await openDynamo(options);
  const client = createDynamoClient({ endpoint: dynamo.endpoint });
  const closeAll = async () => {
    client.destroy();
    await dynamo.close();
  };
  try {
    let seeded = false;
    try {
      if (options.dynamodbEndpoint !== undefined) await checkAnswersLikeDynamo(client, dynamo.endpoint);
      await createTables(client, LOCAL_TABLES);
      // Only into an empty store: another may hold the user's own orders with the demo ids.
      seeded = options.demo && (await storeIsEmpty(client, LOCAL_TABLES));
    } catch (error) {
      throw storeProblem(error, options) ?? error;
    }
    // The app's own repositories seed and read the demo data; nothing listens before server.listen.
    const { server, orders, keys, pets, streamMappings, webhookQueue, indexCanary } = createLocalApp({
      endpoint: dynamo.endpoint,
      tables: LOCAL_TABLES,
      // Walks hold their watermark back by the lag it measures, as deployed (docs/design.md#the-index-lag-canary).
      indexCanary: true,
      publicRoutes: docsRoutes({ server: () => server }),
      ...(dynamo.stream ? { changeStream: dynamo.stream } : {}),
      ...(options.addressLimit ? { addressLimit: { ...ADDRESS_LIMIT, limit: options.addressLimit } } : {}),
      ...(options.webhookFailRate ? { webhookFailRate: options.webhookFailRate } : {}),
      ...(onAccessLog ? { onAccessLog: (entry) => onAccessLog(JSON.stringify({ type: 'access', ...entry })) } : {}),
    });
    // No listing outlives the process that served it: slots a killed stack left taken are free.
    if (options.dynamodbEndpoint === undefined)
      await releaseAllSlots(createDocumentClient(client), LOCAL_TABLES.rateLimits);
    if (seeded) await seedDemoData(orders, keys, pets);
    const demoKeys = options.demo ? await workingDemoKeys(keys) : [];

    server.listen(options.port, options.host);
    await once(server, 'listening').catch((error: unknown) => {
      throw field(error, 'code') === 'EADDRINUSE'
        ? new StartUsageError(`API port ${options.port} is in use: choose another with --port or PORT`)
        : (hostProblem(error, options) ?? error);
    });
    const webhookQueueUrl = await webhookQueue.queueUrl();
    const apiPort = listeningPort(server) ?? options.port;
    const apiUrl = `http://${options.host}:${apiPort}${BASE_PATH}`;
    const where = options.dynamodbEndpoint
      ? `DynamoDB at ${dynamo.endpoint} (--dynamodb-endpoint)`
      : `Embedded DynamoDB at ${dynamo.endpoint} (${[
          options.dataDir ? `data in ${options.dataDir}` : 'in memory',
          ...embeddedLag(options),
        ].join('; ')})`;
    const [firstKey] = demoKeys;
    const banner = [
      `Store Orders API (local) at ${apiUrl}`,
      `${where}; tables: ${Object.values(LOCAL_TABLES).join(', ')}`,
      seeded
        ? `Seeded ${DEMO_ORDERS.length} demo orders, their ${DEMO_PETS.length} pets and one demo key per plan into the empty tables.`
        : options.demo
          ? 'The tables hold orders or keys already: nothing seeded (demo data goes only into an empty store).'
          : 'No demo data (--no-demo).',
      ...(demoKeys.length > 0
        ? [
            'Demo keys:',
            ...demoKeys.map(
              ({ plan, key, limits }) =>
                `  ${plan.padEnd(10)} ${key}   (${limits.perMinute}/min, ${limits.perDay}/day)`,
            ),
          ]
        : ['No working demo key: create one with the admin command (keys create --plan free).']),
      `Webhooks: order events go to the endpoints you register (loopback http allowed here), retried on the deployed schedule${
        options.webhookFailRate
          ? `; ${options.webhookFailRate * 100}% of acknowledged deliveries taken as failed (--webhook-fail-rate)`
          : ''
      } (docs/local-development.md#webhooks).`,
      `Admin command for this stack: ${adminInvocation(options, dynamo.endpoint)}`,
      `API reference: ${apiUrl}${DOCS_PATH} (OpenAPI document: ${BASE_PATH}${OPENAPI_PATH})`,
      ...(firstKey ? [`Try: curl -i -H "Authorization: Bearer ${firstKey.key}" ${apiUrl}/store/orders`] : []),
    ];
    return {
      apiUrl,
      dynamoEndpoint: dynamo.endpoint,
      webhookQueueUrl,
      banner,
      close: async () => {
        server.close();
        server.closeAllConnections();
        for (const mapping of Object.values(streamMappings)) mapping.close();
        await indexCanary?.close();
        await closeAll();
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
