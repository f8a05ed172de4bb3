import { rmSync } from 'node:fs';
import type { EmbeddedDynamo } from '../../tools/local/embedded-dynamo';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __dynamo?: EmbeddedDynamo }).__dynamo?.close();
  const runTmp = process.env.STORE_ORDERS_TEST_TMP;
  if (runTmp !== undefined) rmSync(runTmp, { recursive: true, force: true });
}
