// `orders import` as a user runs it: the admin command in its own process, writing a JSON file of
// orders into fresh tables on the shared embedded server, timed from spawn to exit.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TABLES } from '../../lib/aws/tables';
import { createTestTables } from '../../test/support/dynamo';
import { IMPORT_CONCURRENCY } from '../../tools/admin/commands/orders';
import { childEnv } from '../support/env';
import { n } from '../support/stats';
import type { Row, Suite } from '../support/suite';

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tools', 'admin', 'cli.ts');

function runImport(file: string, env: Record<string, string>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the embedded server the command writes to runs in this process.
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'orders', 'import', file], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`import exited ${code}: ${err.slice(0, 800)}`)),
    );
  });
}

export const adminImport: Suite = {
  name: 'admin orders import',
  async run({ quick, endpoint, outDir, log }) {
    const count = quick ? 2_000 : 100_000;
    const tables = await createTestTables(endpoint);
    try {
      const file = path.join(outDir, 'import.json');
      const orders = Array.from({ length: count }, (_, i) => ({
        id: 1_000_000 + i,
        petId: 7,
        quantity: 2,
        shipDate: '2026-11-20T10:00:00Z',
        complete: false,
        status: 'pending',
      }));
      writeFileSync(file, JSON.stringify(orders));
      log(`  importing ${count} orders`);
      const env = childEnv({
        DYNAMODB_ENDPOINT: endpoint,
        [TABLES.orders.envVar]: tables.names.orders,
        [TABLES.apiKeys.envVar]: tables.names.apiKeys,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      });
      const ms = await runImport(file, env);
      const perSecond = count / (ms / 1000);
      const rows: Row[] = [
        [
          'admin orders import',
          `${n(count)} new orders, ${IMPORT_CONCURRENCY} conditional puts in flight`,
          `${n(ms / 1000, 1)} s (${n(perSecond)} orders/s)`,
          'goal: 100,000 orders well under a minute locally',
        ],
      ];
      return { rows, figures: { count, concurrency: IMPORT_CONCURRENCY, ms, perSecond } };
    } finally {
      await tables.drop();
    }
  },
};
