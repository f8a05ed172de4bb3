// The embedded DynamoDB-compatible server in a process of its own (bench/support/dynamo-process.ts):
// `[dataDir]` keeps its tables in LevelDB files there, in memory when absent. Prints its endpoint.

import { childArgs } from './env';
import { startEmbeddedDynamo } from '../../tools/local/embedded-dynamo';

const [dataDir] = childArgs();
const dynamo = await startEmbeddedDynamo({ port: 0, ...(dataDir ? { dataDir } : {}) });
process.stdout.write(`${JSON.stringify({ endpoint: dynamo.endpoint })}\n`);
process.once('SIGTERM', () => {
  const { user, system } = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ cpuMs: (user + system) / 1000 })}\n`);
  void dynamo.close().then(() => process.exit(0));
});
