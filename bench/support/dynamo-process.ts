// An embedded DynamoDB-compatible server in a child process, for a suite that writes a million
// items: the server's work (validation, the two index writes per order, its storage) runs beside
// the writer's SDK calls instead of on the same event loop, and its heap is its own.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CHILD_ARGS_VAR, childEnv } from './env';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'dynamo-child.ts');

export interface DynamoProcess {
  endpoint: string;
  /** Stops the server and resolves to the CPU time it used, in milliseconds. */
  close(): Promise<number>;
}

/** Starts the server, its tables in LevelDB files under `dataDir` (in memory when absent). */
export async function startDynamoProcess(dataDir?: string): Promise<DynamoProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: childEnv({ [CHILD_ARGS_VAR]: JSON.stringify(dataDir === undefined ? [] : [dataDir]) }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  // 'close' comes after the child's output is read to its end, so a line it printed is never lost to it.
  const closed = once(child, 'close').then(([code]: unknown[]) => ({ closed: code }));
  const next = async (): Promise<unknown> => {
    const line = await Promise.race([lines.next(), closed]);
    if ('closed' in line || line.done === true)
      throw new Error('the DynamoDB server process ended before it printed what it was asked for');
    return JSON.parse(String(line.value)) as unknown;
  };
  const { endpoint } = (await next()) as { endpoint: string };
  return {
    endpoint,
    async close() {
      child.kill('SIGTERM');
      const { cpuMs } = (await next()) as { cpuMs: number };
      await closed;
      return cpuMs;
    },
  };
}
