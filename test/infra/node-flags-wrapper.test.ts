// The wrapper Lambda starts list-orders through (AWS_LAMBDA_EXEC_WRAPPER), run here the way Lambda
// runs it: with the runtime's own command (node, the runtime's flags, the runtime's entry script).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FUNCTIONS } from '../../infra/functions';
import { lambdaRuntimeNodeFlags, NODE_FLAGS_WRAPPER, nodeFlagsEnvironment } from '../../infra/runtime/lambda-node';

interface Probe {
  execArgv: string[];
  heapLimitMb: number;
}

const LIST = FUNCTIONS['list-orders'];
const RUNTIME_FLAGS = lambdaRuntimeNodeFlags(LIST.memoryMb);
/** Stands in for the runtime's entry script: reports how node was started. */
let probe: string;
beforeAll(() => {
  probe = path.join(mkdtempSync(path.join(os.tmpdir(), 'node-flags-')), 'index.mjs');
  writeFileSync(
    probe,
    "import v8 from 'node:v8';\nprocess.stdout.write(JSON.stringify({ execArgv: process.execArgv, heapLimitMb: v8.getHeapStatistics().heap_size_limit / 1048576 }));\n",
  );
});

function run(command: string, args: readonly string[], env: Record<string, string> = {}) {
  return spawnSync(command, args, { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 20_000 });
}

function started(command: string, args: readonly string[], env: Record<string, string> = {}): Probe {
  const result = run(command, args, env);
  if (result.status !== 0) throw new Error(`${command} exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Probe;
}

const wrapped = (flags: readonly string[], runtimeFlags: readonly string[] = RUNTIME_FLAGS) =>
  started(NODE_FLAGS_WRAPPER.source, [process.execPath, ...runtimeFlags, probe], nodeFlagsEnvironment(flags));

test('the script is executable, as Lambda needs it to be', () => {
  expect(statSync(NODE_FLAGS_WRAPPER.source).mode & 0o111).toBe(0o111);
});

test("list-orders' flags come after the runtime's own, and its node really runs with them", () => {
  const flags = LIST.nodeFlags ?? [];
  expect(flags.length).toBeGreaterThan(0);
  const probed = wrapped(flags);
  expect(probed.execArgv).toEqual([...RUNTIME_FLAGS, ...flags]);
  // --optimize-for-size keeps the semi-space at 1 MB whatever the runtime asked for: the heap is
  // that of the runtime's old space with a 1 MB semi-space, and smaller than without the flag.
  const withoutFlags = started(process.execPath, [...RUNTIME_FLAGS, probe]);
  const withSmallSemiSpace = started(process.execPath, [...RUNTIME_FLAGS, '--max-semi-space-size=1', probe]);
  expect(probed.heapLimitMb).toBe(withSmallSemiSpace.heapLimitMb);
  expect(probed.heapLimitMb).toBeLessThan(withoutFlags.heapLimitMb);
});

test("a flag the runtime also sets is the wrapper's value: it comes last", () => {
  const probed = wrapped(['--max-old-space-size=256', '--max-semi-space-size=2']);
  expect(probed.heapLimitMb).toBe(
    started(process.execPath, ['--max-old-space-size=256', '--max-semi-space-size=2', probe]).heapLimitMb,
  );
});

test('the runtime script stays last when a runtime flag takes its value as a separate argument', () => {
  const runtimeFlags = ['--expose-gc', '--max-http-header-size', '81920', ...RUNTIME_FLAGS.slice(1)];
  expect(wrapped(['--optimize-for-size'], runtimeFlags).execArgv).toEqual([...runtimeFlags, '--optimize-for-size']);
});

test.each([
  ['unset', {}],
  ['empty', { [NODE_FLAGS_WRAPPER.flagsVar]: '' }],
])('with the flags variable %s the wrapper fails loudly and starts nothing', (_, env) => {
  const result = run(NODE_FLAGS_WRAPPER.source, [process.execPath, ...RUNTIME_FLAGS, probe], env);
  expect(result.status).not.toBe(0);
  expect(result.stderr).toContain(NODE_FLAGS_WRAPPER.flagsVar);
  expect(result.stdout).toBe('');
});

test('without a command to run the wrapper fails loudly', () => {
  const result = run(NODE_FLAGS_WRAPPER.source, [process.execPath], nodeFlagsEnvironment(['--optimize-for-size']));
  expect(result.status).toBe(64);
  expect(result.stderr).toMatch(/expected the runtime's command/);
});

test("the function's environment names the wrapper where Lambda unpacks the code, and refuses flags the wrapper would split", () => {
  expect(nodeFlagsEnvironment(['--optimize-for-size', '--max-old-space-size=512'])).toEqual({
    AWS_LAMBDA_EXEC_WRAPPER: '/var/task/node-flags.sh',
    EXTRA_NODE_FLAGS: '--optimize-for-size --max-old-space-size=512',
  });
  expect(() => nodeFlagsEnvironment([])).toThrow(/one or more/);
  expect(() => nodeFlagsEnvironment(['--title=a b'])).toThrow(/without spaces/);
  expect(() => nodeFlagsEnvironment(['optimize-for-size'])).toThrow();
});

test("the runtime's heap flags are those of its bootstrap: a tenth of the memory as new space, the rest old space", () => {
  expect(lambdaRuntimeNodeFlags(1769)).toEqual([
    '--expose-gc',
    '--max-semi-space-size=88',
    '--max-old-space-size=1593',
  ]);
  expect(lambdaRuntimeNodeFlags(256)).toEqual(['--expose-gc', '--max-semi-space-size=12', '--max-old-space-size=231']);
});
