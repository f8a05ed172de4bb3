// The wrapper Lambda starts list-orders through (AWS_LAMBDA_EXEC_WRAPPER), run here the way Lambda
// runs it: with the runtime's own command as its bootstrap builds it (node, its flags, one of them
// with its value as a separate argument, its entry script), this machine's node and a probe
// script standing in for Lambda's paths.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FUNCTIONS } from '../../lib/contract/deployment';
import { REPO_ROOT } from '../../infra/functions';
import {
  LAMBDA_RUNTIME,
  lambdaRuntimeCommand,
  lambdaRuntimeNodeFlags,
  NODE_FLAGS_WRAPPER,
  nodeFlagsEnvironment,
} from '../../infra/runtime/lambda-node';

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

const wrapped = (
  flags: readonly string[],
  runtimeFlags: readonly string[] = RUNTIME_FLAGS,
  scriptArgs: string[] = [],
) =>
  started(
    NODE_FLAGS_WRAPPER.source,
    [process.execPath, ...runtimeFlags, probe, ...scriptArgs],
    nodeFlagsEnvironment(flags),
  );

test('the script is executable, as Lambda needs it to be', () => {
  expect(statSync(NODE_FLAGS_WRAPPER.source).mode & 0o111).toBe(0o111);
});

test("list-orders' flags come right after node, the runtime's own follow in their order, and node really runs with them", () => {
  const flags = LIST.nodeFlags ?? [];
  expect(flags.length).toBeGreaterThan(0);
  const probed = started(
    NODE_FLAGS_WRAPPER.source,
    lambdaRuntimeCommand(LIST.memoryMb, { node: process.execPath, entry: probe }),
    nodeFlagsEnvironment(flags),
  );
  expect(probed.execArgv).toEqual([...flags, ...RUNTIME_FLAGS]);
  // --optimize-for-size keeps the semi-space at 1 MB whatever the runtime asked for: the heap is
  // that of the runtime's old space with a 1 MB semi-space, and smaller than without the flag.
  const withoutFlags = started(process.execPath, [...RUNTIME_FLAGS, probe]);
  const withSmallSemiSpace = started(process.execPath, [...RUNTIME_FLAGS, '--max-semi-space-size=1', probe]);
  expect(probed.heapLimitMb).toBe(withSmallSemiSpace.heapLimitMb);
  expect(probed.heapLimitMb).toBeLessThan(withoutFlags.heapLimitMb);
});

test("a flag the runtime also sets is the wrapper's value: the runtime's is left out", () => {
  const probed = wrapped(['--max-old-space-size=256', '--max-semi-space-size=2']);
  expect(probed.execArgv).toEqual([
    '--max-old-space-size=256',
    '--max-semi-space-size=2',
    '--expose-gc',
    '--max-http-header-size',
    '81920',
  ]);
  expect(probed.heapLimitMb).toBe(
    started(process.execPath, ['--max-old-space-size=256', '--max-semi-space-size=2', probe]).heapLimitMb,
  );
});

test("the runtime's flag written with a separate value, or with underscores, is left out with its value", () => {
  const runtimeFlags = ['--expose-gc', '--max_old_space_size', '1593', '--max-http-header-size', '81920'];
  expect(wrapped(['--max-old-space-size=256', '--max-http-header-size=16384'], runtimeFlags).execArgv).toEqual([
    '--max-old-space-size=256',
    '--max-http-header-size=16384',
    '--expose-gc',
  ]);
});

test('arguments after the entry script stay its arguments, in order, whatever their number', () => {
  const result = run(
    NODE_FLAGS_WRAPPER.source,
    [
      process.execPath,
      ...RUNTIME_FLAGS,
      '-e',
      'process.stdout.write(JSON.stringify([process.execArgv, process.argv.slice(1)]))',
      'a',
      '--b',
      'c',
    ],
    nodeFlagsEnvironment(['--optimize-for-size']),
  );
  expect(result.status).toBe(0);
  const [execArgv, argv] = JSON.parse(result.stdout) as [string[], string[]];
  expect(execArgv.slice(0, 1 + RUNTIME_FLAGS.length)).toEqual(['--optimize-for-size', ...RUNTIME_FLAGS]);
  expect(argv).toEqual(['a', '--b', 'c']);
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

test("the runtime's command is its bootstrap's: a tenth of the memory as new space, the rest old space", () => {
  expect(lambdaRuntimeCommand(1769)).toEqual([
    '/var/lang/bin/node',
    '--expose-gc',
    '--max-http-header-size',
    '81920',
    '--max-semi-space-size=88',
    '--max-old-space-size=1593',
    '/var/runtime/index.mjs',
  ]);
  expect(lambdaRuntimeNodeFlags(256)).toEqual([
    '--expose-gc',
    '--max-http-header-size',
    '81920',
    '--max-semi-space-size=12',
    '--max-old-space-size=231',
  ]);
  expect(LAMBDA_RUNTIME.entry).toBe('/var/runtime/index.mjs');
});

test('the script and the other shell scripts are checked out with LF line ends, which bash needs', () => {
  const attributes = readFileSync(path.join(REPO_ROOT, '.gitattributes'), 'utf8');
  expect(attributes).toMatch(/^\*\.sh\s+text\s+eol=lf\b/m);
  expect(readFileSync(NODE_FLAGS_WRAPPER.source, 'utf8')).not.toContain('\r');
  // git agrees: the attribute applies to the wrapper itself.
  const checked = spawnSync('git', ['check-attr', 'eol', '--', path.relative(REPO_ROOT, NODE_FLAGS_WRAPPER.source)], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  expect(checked.stdout.trim()).toMatch(/: eol: lf$/);
});
