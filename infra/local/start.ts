import { parseArgs } from 'node:util';
import { ApiKeysRepository } from '../../lib/keys/repository';
import { createApiKey } from '../../lib/keys/service';
import { isConditionFailure } from '../../lib/aws/conditional';
import { createTables } from './create-tables';
import { createDocumentClient, createDynamoClient } from '../../lib/aws/dynamo';
import { OrdersRepository } from '../../lib/orders/repository';
import { limitsFor, PLAN_NAMES } from '../../lib/limits/plans';
import { BASE_PATH } from '../../lib/contract/routes';
import { createLocalApp } from './app';
import { docsRoutes, DOCS_PATH, OPENAPI_PATH } from './docs-routes';
import { DEMO_ENTERPRISE_LIMITS, DEMO_ORDERS, demoKey } from './demo-data';
import { startEmbeddedDynamo } from './embedded-dynamo';
import { LOCAL_TABLES } from './local-config';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    'dynamodb-port': { type: 'string', default: process.env.DYNAMODB_PORT ?? '8000' },
    port: { type: 'string', default: process.env.PORT ?? '3000' },
    host: { type: 'string', default: '127.0.0.1' },
    quiet: { type: 'boolean', default: false },
  },
});

function portOf(text: string, name: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`${name} must be a port number, got "${text}"`);
    process.exit(2);
  }
  return port;
}

async function main(): Promise<void> {
  const dynamo = await startEmbeddedDynamo({
    host: values.host,
    port: portOf(values['dynamodb-port'], 'DYNAMODB_PORT'),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
  });
  const client = createDynamoClient({ endpoint: dynamo.endpoint });
  const doc = createDocumentClient(client);
  await createTables(client, LOCAL_TABLES);

  const orders = new OrdersRepository(doc, LOCAL_TABLES.orders);
  let seeded = 0;
  for (const order of DEMO_ORDERS) if (await orders.create(order)) seeded++;

  const keys = new ApiKeysRepository(doc, LOCAL_TABLES.apiKeys);
  const demoKeys: string[] = [];
  for (const plan of PLAN_NAMES) {
    const key = demoKey(plan);
    const limits = plan === 'enterprise' ? DEMO_ENTERPRISE_LIMITS : undefined;
    await createApiKey(keys, { plan, name: `demo ${plan}`, ...(limits ? { limits } : {}) }, { key }).catch((error: unknown) => {
      // Kept from an earlier start with --data-dir (or revoked there on purpose).
      if (!isConditionFailure(error)) throw error;
    });
    const { perMinute, perDay } = limitsFor(plan, limits);
    demoKeys.push(`  ${plan.padEnd(10)} ${key}   (${perMinute}/min, ${perDay}/day)`);
  }

  const { server } = createLocalApp({
    endpoint: dynamo.endpoint,
    tables: LOCAL_TABLES,
    publicRoutes: docsRoutes({ server: () => server }),
    onAccessLog: values.quiet ? undefined : (entry) => console.log(JSON.stringify({ type: 'access', ...entry })),
  });
  const port = portOf(values.port, 'PORT');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, values.host, () => resolve());
  });
  const address = server.address();
  const apiPort = typeof address === 'object' && address ? address.port : port;

  console.log(
    [
      `Store Orders API (local) at http://${values.host}:${apiPort}${BASE_PATH}`,
      `Embedded DynamoDB at ${dynamo.endpoint} (${values['data-dir'] ? `data in ${values['data-dir']}` : 'in memory'}); tables: ${Object.values(LOCAL_TABLES).join(', ')}`,
      `Seeded ${seeded} demo order(s). Demo keys:`,
      ...demoKeys,
      `API reference: http://${values.host}:${apiPort}${BASE_PATH}${DOCS_PATH} (OpenAPI document: ${BASE_PATH}${OPENAPI_PATH})`,
      `Try: curl -i -H "Authorization: Bearer ${demoKey('free')}" http://${values.host}:${apiPort}${BASE_PATH}/store/orders`,
    ].join('\n'),
  );

  const stop = () => {
    server.close();
    server.closeAllConnections();
    void dynamo.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`Could not start the local stack: ${message}`);
  process.exit(1);
});
