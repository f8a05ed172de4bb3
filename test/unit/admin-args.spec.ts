// The admin command line, in process: each mistake is one line on stderr and exit 2, before any
// table is opened. test/integration/admin-cli.test.ts runs the real entries only for their exit
// statuses and npm's own handling of options.
import { COMMANDS } from '../../tools/admin/commands';
import { OPTION_NAMES, parseCommandLine, synopsis } from '../../tools/admin/args';
import { EXIT_OK, EXIT_USAGE } from '../../tools/shared/errors';
import { USAGE } from '../../tools/admin/usage';
import { adminRunner } from '../support/admin-harness';
import { PLAN_NAMES } from '../../lib/contract/plans';
import { STAGE_NAMES } from '../../lib/contract/deployment';

const admin = adminRunner(() => {
  throw new Error('a usage mistake must stop before the tables are opened');
});

const HINT = ' (npm run admin -- --help lists the commands)';

test.each<[string[], string]>([
  [[], 'No command given'],
  [['keys'], 'keys needs a command'],
  [['keys', 'lst'], 'Unknown command "keys lst"'],
  [['keys', 'create'], `keys create needs --plan (${PLAN_NAMES.join(', ')})`],
  [['keys', 'create', '--plan', 'gold'], `--plan must be one of ${PLAN_NAMES.join(', ')}`],
  [['keys', 'create', '--plan', 'free', '--plan', 'pro'], '--plan is given more than once'],
  [['keys', 'list', '--plan', 'free'], 'keys list does not take --plan'],
  [['keys', 'list', '--bogus'], "Unknown option '--bogus'"],
  [['keys', 'create', '--plan'], "Option '--plan <value>' argument missing"],
  [['keys', 'revoke'], 'keys revoke takes <key-id>'],
  [['keys', 'revoke', 'key_1', 'key_2'], 'keys revoke takes <key-id>'],
  [['keys', 'list', 'extra'], 'keys list takes no arguments'],
  [['--stage', 'dev', 'keys', 'list'], `--stage must be one of ${STAGE_NAMES.join(', ')}`],
  [
    ['keys', 'create', '--plan', 'enterprise', '--rpm', '5000'],
    'An enterprise key needs both --rpm (requests per minute) and --rpd (requests per day)',
  ],
  [['keys', 'revoke', 'not-an-id'], 'A key id is key_ followed by 20 hexadecimal digits, as `keys list` shows'],
  [['orders', 'ship', '-5'], "Unknown option '-5': to give a value that starts with -, put -- before it (-- -5)"],
  [['orders', 'ship', '007'], 'Order id 007 has a plus sign or leading zeros: write it as 7'],
])('%j: one line, exit 2', async (argv, message) => {
  expect(await admin(...argv)).toEqual({
    code: EXIT_USAGE,
    stdout: '',
    stderr: `Error: ${message}${HINT}`,
    progress: [],
  });
});

test('an option npm took for itself (npm run admin keys list --json) names it and the fix', async () => {
  const taken = adminRunner(
    () => {
      throw new Error('must stop before the tables');
    },
    { env: { npm_config_json: 'true' } },
  );
  expect(await taken('keys', 'list')).toMatchObject({
    code: EXIT_USAGE,
    stdout: '',
    stderr:
      "Error: npm took --json as its own option: put the command's arguments after --, e.g. npm run admin -- keys list --json" +
      HINT,
  });
});

test('--help, -h and help print the usage, which shows every command; exit 0', async () => {
  for (const argv of [['--help'], ['-h'], ['help'], ['keys', 'create', '--help']]) {
    expect(await admin(...argv)).toEqual({ code: EXIT_OK, stdout: USAGE, stderr: '', progress: [] });
  }
  for (const command of COMMANDS) expect(USAGE).toContain(synopsis(command));
});

test('a command line binds the command to its arguments; every option of every command is known', () => {
  const line = parseCommandLine(['--stage', 'prod', 'keys', 'usage', 'key_0123456789abcdef0123', '--json']);
  expect(line).toMatchObject({ help: false, stage: 'prod', command: { name: 'keys usage' } });
  for (const command of COMMANDS)
    for (const option of Object.keys(command.options)) expect(OPTION_NAMES).toContain(option);
});
