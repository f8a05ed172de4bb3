// `npm stop`: stops every local stack `npm start` runs from this checkout (their state files, in
// tools/shared/stack-state.ts), each as Ctrl-C does, and returns once each process has exited, its
// ports closed. With none running, one line says so.

import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../shared/errors';
import { processExists, recordedStacks } from '../shared/stack-state';

/** How long a stack may take to close (it applies the writes it still holds back), and how often to look. */
const STOP_WAIT_MS = 30_000;
const POLL_MS = 100;

async function main(): Promise<number> {
  if (process.argv.length > 2) {
    console.error('npm stop: takes no arguments (it stops every local stack npm start runs from this checkout)');
    return EXIT_USAGE;
  }
  const { running, stale } = await recordedStacks();
  for (const line of stale) console.log(`npm stop: ${line}`);
  if (running.length === 0) console.log('npm stop: no local stack is running');
  for (const { pid, apiUrl } of running) {
    process.kill(pid, 'SIGTERM');
    for (let waited = 0; processExists(pid); waited += POLL_MS) {
      if (waited >= STOP_WAIT_MS) {
        console.error(
          `npm stop: the local stack at ${apiUrl} (pid ${pid}) has not stopped in ${STOP_WAIT_MS / 1000} s: kill -KILL ${pid}`,
        );
        return EXIT_FAILURE;
      }
      await sleep(POLL_MS);
    }
    console.log(`Stopped the local stack at ${apiUrl} (pid ${pid}).`);
  }
  return EXIT_OK;
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`npm stop: ${errorMessage(error)}`);
    process.exitCode = EXIT_FAILURE;
  },
);
