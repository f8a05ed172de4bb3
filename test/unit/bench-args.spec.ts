// The `npm run bench` command line: --help, and each mistake as one line with the fix (bench/run.ts
// prints it and exits 2), never node:util's stack trace.
import { benchUsage, BenchUsageError, parseCommandLine } from '../../bench/args';

test('--help asks for the usage, which names every option and the suites given', () => {
  expect(parseCommandLine(['--help'], {}).help).toBe(true);
  const usage = benchUsage(['module init', 'sync versus listing']);
  for (const option of ['--quick', '--suite NAME', '--merge', '--sync-1m', '--docs']) expect(usage).toContain(option);
  expect(usage).toContain("'module init', 'sync versus listing'");
});

test('the options parse as given, --suite repeatable', () => {
  expect(parseCommandLine(['--quick', '--suite', 'a', '--suite', 'b'], {})).toEqual({ quick: true, suite: ['a', 'b'] });
});

test.each<[string[], NodeJS.ProcessEnv, string]>([
  [['--bogus'], {}, "Unknown option '--bogus'"],
  [['quick'], {}, "Unexpected argument 'quick'. This command does not take positional arguments"],
  [['--suite'], {}, "Option '--suite <value>' argument missing"],
  [
    [],
    { npm_config_quick: 'true' },
    "npm took --quick as its own option: put the command's arguments after --, e.g. npm run bench -- --quick",
  ],
])('%j is one line saying what is wrong', (argv, env, message) => {
  const parse = () => parseCommandLine(argv, env);
  expect(parse).toThrow(BenchUsageError);
  expect(parse).toThrow(message);
  expect(() => parse()).not.toThrow(/\n/);
});
