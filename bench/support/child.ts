import { spawn } from 'node:child_process';

/**
 * Runs a bundled bench script in a fresh node and resolves to its result: the last line it prints,
 * as JSON (anything the service logs comes before it). Asynchronous on purpose: the embedded
 * server the child reads from runs in this process. A child that ran out of heap (under a cap)
 * resolves to `{ failed }`; any other failure rejects.
 */
export function runChild<T>(file: string, args: readonly string[], env: Record<string, string>, nodeFlags: readonly string[] = []): Promise<T | { failed: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', ...nodeFlags, file, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as T);
      else if (/heap out of memory/i.test(err)) resolve({ failed: 'heap out of memory' });
      else reject(new Error(`${file} ${args.join(' ')} exited ${code}: ${err.slice(0, 800)}`));
    });
  });
}

/** The result of a child that must not fail. */
export async function runChildOrThrow<T>(file: string, args: readonly string[], env: Record<string, string>, nodeFlags: readonly string[] = []): Promise<T> {
  const result = await runChild<T>(file, args, env, nodeFlags);
  if (typeof result === 'object' && result !== null && 'failed' in result) throw new Error(`${file} ${args.join(' ')}: ${String(result.failed)}`);
  return result as T;
}
