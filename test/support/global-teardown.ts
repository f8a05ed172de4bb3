import type { EmbeddedDynamo } from '../../tools/local/embedded-dynamo';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __dynamo?: EmbeddedDynamo }).__dynamo?.close();
}
