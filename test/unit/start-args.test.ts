// `npm start`'s command line, in process: every mistake is one line (the one start.ts prints) and
// exit 2. test/http/start.test.ts runs the real entry only where the process itself is the point.
import { EXIT_FAILURE, EXIT_USAGE } from '../../tools/shared/errors';
import { DEFAULT_API_PORT, DEFAULT_DYNAMODB_PORT, DEFAULT_HOST } from '../../tools/shared/local-config';
import {
  DEFAULT_INDEX_LAG_MS,
  parseStartArgs,
  START_USAGE,
  startFailure,
  StartUsageError,
} from '../../tools/local/start-args';
import { everyKthWrite } from '../../tools/local/held-calls';
import { WAF_RATE_RULE } from '../../lib/contract/address-limit';

/** The line and exit status npm start ends with for this command line, or the options it reads. */
function outcome(argv: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    return { options: parseStartArgs(argv, env) };
  } catch (error) {
    return startFailure(error);
  }
}

const usage = (line: string) => ({ line: `npm start: ${line}`, code: EXIT_USAGE });

test.each<[string[], NodeJS.ProcessEnv, string]>([
  [['--bogus'], {}, "Unknown option '--bogus' (npm start -- --help lists the options)"],
  [['--port'], {}, "Option '--port <value>' argument missing (npm start -- --help lists the options)"],
  [['stray'], {}, 'Unexpected argument "stray": npm start takes only options (npm start -- --help)'],
  // An unknown option is echoed shortened too, as the admin and smoke commands echo theirs.
  [
    [`--${'y'.repeat(5000)}`],
    {},
    `Unknown option '--${'y'.repeat(37)}... (5004 characters) (npm start -- --help lists the options)`,
  ],
  // A pasted blob is echoed by its first characters and its length, never whole.
  [
    ['x'.repeat(5000)],
    {},
    `Unexpected argument "${'x'.repeat(40)}... (5000 characters)": npm start takes only options (npm start -- --help)`,
  ],
  [['--port', 'abc'], {}, '--port must be a port number from 0 to 65535, got "abc"'],
  // An empty option is the option's mistake, not the environment's, and never the default.
  [['--port', ''], { PORT: '3001' }, '--port must be a port number from 0 to 65535, got ""'],
  [['--dynamodb-port', ''], {}, '--dynamodb-port must be a port number from 0 to 65535, got ""'],
  [['--data-dir', ''], {}, '--data-dir needs a folder'],
  [
    ['--dynamodb-endpoint', '127.0.0.1:8000'],
    {},
    '--dynamodb-endpoint must be an http:// or https:// URL such as http://127.0.0.1:8000, got "127.0.0.1:8000"',
  ],
  [
    ['--dynamodb-endpoint', 'http://127.0.0.1:8000', '--data-dir', 'kept'],
    {},
    '--data-dir is for the embedded server; it cannot go with --dynamodb-endpoint',
  ],
  [
    ['--dynamodb-endpoint', 'http://127.0.0.1:8000', '--dynamodb-port', '8001'],
    {},
    '--dynamodb-port is for the embedded server; it cannot go with --dynamodb-endpoint',
  ],
  // What `npm start --data-dir X` (without `--`) hands the script: npm keeps the option, X arrives alone.
  [
    ['kept'],
    { npm_config_data_dir: 'true' },
    "npm took --data-dir as its own option: put the stack's options after --, e.g. npm start -- --data-dir ...",
  ],
  [
    [],
    { npm_config_demo: '' },
    "npm took --no-demo as its own option: put the stack's options after --, e.g. npm start -- --no-demo ...",
  ],
  [[], { DYNAMODB_PORT: 'eight' }, 'DYNAMODB_PORT must be a port number from 0 to 65535, got "eight"'],
  [['--index-lag-ms', 'soon'], {}, '--index-lag-ms must be a whole number from 0 to 2147483647, got "soon"'],
  [['--index-lag-ms', '1.5'], {}, '--index-lag-ms must be a whole number from 0 to 2147483647, got "1.5"'],
  [['--index-lag-ms', ''], {}, '--index-lag-ms must be a whole number from 0 to 2147483647, got ""'],
  // Longer than a Node timer can wait: it would fire at once.
  [
    ['--hold-writes-ms', '2147483648'],
    {},
    '--hold-writes-ms must be a whole number from 0 to 2147483647, got "2147483648"',
  ],
  [
    ['--hold-writes-ms', '2000', '--hold-writes-every', '0'],
    {},
    '--hold-writes-every must be a whole number from 1 to 2147483647, got "0"',
  ],
  [['--hold-writes-every', '10'], {}, '--hold-writes-every goes with --hold-writes-ms (how long to hold those writes)'],
  [
    ['--dynamodb-endpoint', 'http://127.0.0.1:8000', '--index-lag-ms', '0'],
    {},
    '--index-lag-ms is for the embedded server; it cannot go with --dynamodb-endpoint',
  ],
  [
    ['--dynamodb-endpoint', 'http://127.0.0.1:8000', '--hold-writes-ms', '100'],
    {},
    '--hold-writes-ms is for the embedded server; it cannot go with --dynamodb-endpoint',
  ],
  [
    ['--address-limit', '9'],
    {},
    `--address-limit must be a whole number from ${WAF_RATE_RULE.minLimit} to ${WAF_RATE_RULE.maxLimit} (what AWS WAF takes), got "9"`,
  ],
  [
    ['--address-limit', 'many'],
    {},
    `--address-limit must be a whole number from ${WAF_RATE_RULE.minLimit} to ${WAF_RATE_RULE.maxLimit} (what AWS WAF takes), got "many"`,
  ],
  [['--webhook-fail-rate', '1.5'], {}, '--webhook-fail-rate must be a share from 0 to 1, such as 0.3, got "1.5"'],
  [['--webhook-fail-rate', '30%'], {}, '--webhook-fail-rate must be a share from 0 to 1, such as 0.3, got "30%"'],
])('%j with %j: one line, exit 2', (argv, env, line) => {
  expect(outcome(argv, env)).toEqual(usage(line));
});

test('--webhook-fail-rate takes a share from 0 to 1', () => {
  expect(outcome(['--webhook-fail-rate', '0.3'])).toMatchObject({ options: { webhookFailRate: 0.3 } });
  expect(outcome(['--webhook-fail-rate', '1'])).toMatchObject({ options: { webhookFailRate: 1 } });
  expect(outcome(['--webhook-fail-rate', '.25'])).toMatchObject({ options: { webhookFailRate: 0.25 } });
});

test('no option: the defaults, the environment’s ports first, demo data on', () => {
  expect(outcome([])).toEqual({
    options: {
      host: DEFAULT_HOST,
      port: DEFAULT_API_PORT,
      dynamodbPort: DEFAULT_DYNAMODB_PORT,
      demo: true,
      quiet: false,
      indexLagMs: DEFAULT_INDEX_LAG_MS,
    },
  });
  expect(outcome([], { PORT: '3001', DYNAMODB_PORT: '8001' })).toMatchObject({
    options: {
      port: 3001,
      dynamodbPort: 8001,
    },
  });
});

test('every option is read', () => {
  expect(
    parseStartArgs(
      [
        ...['--port', '0', '--host', '0.0.0.0', '--dynamodb-port', '0', '--data-dir', 'kept', '--no-demo', '--quiet'],
        ...['--index-lag-ms', '250', '--hold-writes-ms', '2000', '--hold-writes-every', '10'],
        ...['--address-limit', String(WAF_RATE_RULE.minLimit)],
      ],
      {},
    ),
  ).toEqual({
    host: '0.0.0.0',
    port: 0,
    dynamodbPort: 0,
    dataDir: 'kept',
    demo: false,
    quiet: true,
    indexLagMs: 250,
    holdWrites: { ms: 2000, every: 10 },
    addressLimit: WAF_RATE_RULE.minLimit,
  });
  // No lag, and no hold, when asked for none; a hold without --hold-writes-every holds every write.
  expect(parseStartArgs(['--index-lag-ms', '0', '--hold-writes-ms', '0'], {})).toMatchObject({ indexLagMs: 0 });
  expect(parseStartArgs(['--hold-writes-ms', '0'], {})).not.toHaveProperty('holdWrites');
  expect(parseStartArgs(['--hold-writes-ms', '500'], {})).toMatchObject({ holdWrites: { ms: 500, every: 1 } });
  expect(parseStartArgs(['--dynamodb-endpoint', 'http://127.0.0.1:8000/'], {})).toMatchObject({
    dynamodbEndpoint: 'http://127.0.0.1:8000',
  });
});

test('--hold-writes-every K holds every Kth write, and only those', () => {
  const hold = everyKthWrite(2000, 3);
  const write = { operation: 'PutItem', table: 'orders', body: '{}', abandoned: new AbortController().signal };
  expect(Array.from({ length: 7 }, () => hold(write))).toEqual([
    undefined,
    undefined,
    2000,
    undefined,
    undefined,
    2000,
    undefined,
  ]);
});

test('--help and -h ask for the usage, which names every option', () => {
  expect(parseStartArgs(['--help'], {})).toBe('help');
  expect(parseStartArgs(['-h'], {})).toBe('help');
  expect(START_USAGE).toMatch(/^Usage: npm start -- \[options\]/);
  for (const option of [
    '--port',
    '--host',
    '--dynamodb-port',
    '--data-dir',
    '--dynamodb-endpoint',
    '--no-demo',
    '--quiet',
    '--index-lag-ms',
    '--hold-writes-ms',
    '--hold-writes-every',
    '--address-limit',
  ])
    expect(START_USAGE).toContain(option);
});

test('a failure that is not a usage mistake is one line (its first), exit 1', () => {
  expect(startFailure(new Error('Table x did not become ACTIVE\n  more detail'))).toEqual({
    line: 'Could not start the local stack: Table x did not become ACTIVE',
    code: EXIT_FAILURE,
  });
  expect(startFailure(new StartUsageError('API port 3000 is in use: choose another with --port or PORT'))).toEqual(
    usage('API port 3000 is in use: choose another with --port or PORT'),
  );
});
