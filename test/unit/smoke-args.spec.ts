// The `npm run smoke` command line, in process: each mistake is one line with the fix and exit 2,
// before any AWS client or table is made. test/http/smoke.test.ts runs the checks themselves.
import { STAGE_NAMES } from '../../lib/contract/deployment';
import { runSmokeCommand, SMOKE_USAGE } from '../../tools/smoke/run';
import { EXIT_OK, EXIT_USAGE } from '../../tools/shared/errors';

async function smoke(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSmokeCommand(argv, {
    out: { out: (line) => out.push(line), err: (line) => err.push(line) },
    stageClients: () => {
      throw new Error('a usage mistake must stop before AWS');
    },
    local: () => {
      throw new Error('a usage mistake must stop before the tables');
    },
    env,
  });
  return { code, out, err };
}

const HINT = ' (npm run smoke -- --help shows the options)';

test.each<[string[], string]>([
  [['--stage', 'dev'], `--stage must be one of ${STAGE_NAMES.join(', ')}`],
  [['--region', 'eu-west-1'], '--region goes with --stage'],
  [['--clean-up'], '--clean-up needs --run ID, the run whose keys to remove'],
  [['--run', 'a b'], '--run takes a run id of letters, digits, - and _, e.g. --run 12345678901'],
  [['--bogus'], "Unknown option '--bogus'"],
  [['--key'], "Option '--key <value>' argument missing"],
  [['stray'], "Unexpected argument 'stray'. This command does not take positional arguments"],
  [['--stage', 'staging', '--stage', 'prod'], '--stage is given more than once'],
])('%j: one line, exit 2', async (argv, message) => {
  expect(await smoke(argv)).toEqual({ code: EXIT_USAGE, out: [], err: [`Error: ${message}${HINT}`] });
});

test('an option npm took for itself (npm run smoke --allow-writes) is one line saying to put it after --', async () => {
  expect(await smoke([], { npm_config_allow_writes: 'true' })).toEqual({
    code: EXIT_USAGE,
    out: [],
    err: [
      "Error: npm took --allow-writes as its own option: put the command's arguments after --, e.g. npm run smoke -- --allow-writes" +
        HINT,
    ],
  });
});

test('--help prints the usage, exit 0', async () => {
  expect(await smoke(['--help'])).toEqual({ code: EXIT_OK, out: [SMOKE_USAGE], err: [] });
  expect(SMOKE_USAGE).toContain('--allow-writes');
});
