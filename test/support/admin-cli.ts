// The admin command as an operator runs it: the real entry, in a child process, pointed at a test's
// tables through the environment, optionally on a machine whose clock is off (skewed-clock.cjs).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TABLES, type TableId, type TableNames } from '../../lib/contract/tables';

const run = promisify(execFile);
export const ROOT = join(__dirname, '../..');
/** The `store-orders-admin` bin (tools/admin/bin.cjs). */
export const ADMIN_BIN = join(ROOT, 'tools/admin/bin.cjs');

export interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

/** What points the admin command at these tables: DYNAMODB_ENDPOINT and each table's variable. */
export function tablesEnv(tables: { endpoint: string; names: TableNames }): NodeJS.ProcessEnv {
  return {
    DYNAMODB_ENDPOINT: tables.endpoint,
    ...Object.fromEntries(Object.entries(TABLES).map(([id, table]) => [table.envVar, tables.names[id as TableId]])),
  };
}

/** Runs `command` in the repository with `env` added to this process's; its exit status and output. */
export async function runChild(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Exit> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: ROOT, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/**
 * The admin command's bin on `tables`, on a machine whose wall clock reads `clockMs()` plus `offMs`
 * when it starts (this process's clock by default): Date.now and new Date() are moved by the
 * preloaded test/support/skewed-clock.cjs, its monotonic clock is not.
 */
export function adminCli(
  tables: { endpoint: string; names: TableNames },
  args: readonly string[],
  clock: { offMs: number; clockMs?: () => number },
): Promise<Exit> {
  const skew = (clock.clockMs?.() ?? Date.now()) - Date.now() + clock.offMs;
  return runChild(process.execPath, ['--require', join(__dirname, 'skewed-clock.cjs'), ADMIN_BIN, ...args], {
    ...tablesEnv(tables),
    TEST_CLOCK_SKEW_MS: String(skew),
  });
}
