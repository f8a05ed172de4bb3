// `orders import` as a user runs it: the admin command in its own process, writing a JSON file of
// new orders into fresh tables on the shared embedded server, timed from spawn to exit.

import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestTables } from '../../test/support/dynamo';
import { IMPORT_CONCURRENCY } from '../../tools/admin/commands/orders';
import { execFileAsync } from '../support/child';
import { lambdaEnv } from '../support/env';
import type { Suite } from '../suite';

export type AdminImportFigures = { count: number; concurrency: number; ms: number; perSecond: number };

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tools', 'admin', 'cli.ts');

export const adminImport: Suite<AdminImportFigures> = {
  name: 'admin orders import',
  async run({ quick, endpoint, outDir, log }) {
    const count = quick ? 2_000 : 100_000;
    const tables = await createTestTables(endpoint);
    try {
      const file = path.join(outDir, 'import.json');
      const order = { petId: 7, quantity: 2, shipDate: '2026-11-20T10:00:00Z', complete: false, status: 'pending' };
      writeFileSync(file, JSON.stringify(Array.from({ length: count }, (_, i) => ({ id: 1_000_000 + i, ...order }))));
      log(`  importing ${count} orders`);
      const env = lambdaEnv(tables.names, endpoint);
      const started = performance.now();
      // Asynchronous on purpose: the embedded server the command writes to runs in this process.
      await execFileAsync(process.execPath, ['--import', 'tsx', CLI, 'orders', 'import', file], { env });
      const ms = performance.now() - started;
      return { count, concurrency: IMPORT_CONCURRENCY, ms, perSecond: count / (ms / 1000) };
    } finally {
      await tables.drop();
    }
  },
};
