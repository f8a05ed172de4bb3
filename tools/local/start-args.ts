// The command line of `npm start`. Every mistake in it is a StartUsageError: one line, exit 2.

import { parseArgs } from 'node:util';
import {
  DEFAULT_API_PORT,
  DEFAULT_DYNAMODB_PORT,
  DEFAULT_HOST,
  dynamoEndpoint,
  portSetting,
} from '../shared/local-config';
import {
  checkedSetting,
  errorMessage,
  EXIT_FAILURE,
  EXIT_USAGE,
  parseArgsMessage,
  shownArgument,
} from '../shared/errors';
import { optionTakenByNpm } from '../shared/npm-options';
import { ADDRESS_LIMIT, addressLimitProblem, WAF_RATE_RULE } from '../../lib/contract/address-limit';

/** A mistake the user can fix on the command line. */
export class StartUsageError extends Error {
  override readonly name = 'StartUsageError';
}

export interface StartOptions {
  host: string;
  port: number;
  /** The embedded server's port; unused with dynamodbEndpoint. */
  dynamodbPort: number;
  /** An existing DynamoDB-compatible server to use instead of the embedded one. */
  dynamodbEndpoint?: string;
  dataDir?: string;
  /** Seed the demo orders and keys when the store is empty. */
  demo: boolean;
  quiet: boolean;
  /** The embedded server's index lag: each write shows in index reads up to this many ms late (absent or 0: at once). */
  indexLagMs?: number;
  /** The embedded server holds every `every`th write `ms` ms before applying it. */
  holdWrites?: { ms: number; every: number };
  /** Requests from one client address per window before the web ACL's 429s, when not the deployed limit. */
  addressLimit?: number;
  /** The share (0 to 1) of webhook deliveries a receiver acknowledges that are taken as failed and retried. */
  webhookFailRate?: number;
}

/**
 * AWS: "Write operations propagate to a GSI within 1 second"
 * (https://repost.aws/knowledge-center/dynamodb-missing-table-items-gsi), so npm start lags as much
 * by default: a client tried against the local stack meets DynamoDB's eventual consistency.
 */
export const DEFAULT_INDEX_LAG_MS = 1000;

const OPTIONS = {
  'data-dir': { type: 'string' },
  'dynamodb-port': { type: 'string' },
  'dynamodb-endpoint': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'no-demo': { type: 'boolean' },
  quiet: { type: 'boolean' },
  'index-lag-ms': { type: 'string' },
  'hold-writes-ms': { type: 'string' },
  'hold-writes-every': { type: 'string' },
  'address-limit': { type: 'string' },
  'webhook-fail-rate': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const START_USAGE = `Usage: npm start -- [options]      (options go after --, or npm keeps them for itself)

Starts the Store Orders API locally: a local API Gateway on an embedded DynamoDB-compatible
server, with demo orders and one demo key per plan in a new store.

Options:
  --port N                   The API's port (default PORT or ${DEFAULT_API_PORT}; 0 picks a free one).
  --host HOST                Address to listen on (default ${DEFAULT_HOST}).
  --dynamodb-port N          The embedded DynamoDB's port (default DYNAMODB_PORT or ${DEFAULT_DYNAMODB_PORT}).
  --data-dir DIR             Keep the data on disk in DIR (a folder; created when missing), so it
                             survives a restart. One npm start at a time per folder.
  --dynamodb-endpoint URL    Use an existing DynamoDB-compatible server (DynamoDB Local, a
                             dynalite of your own) instead of the embedded one; the tables are
                             created there when missing, and waited for until ACTIVE.
  --no-demo                  No demo orders and no demo keys: the tables start empty.
  --quiet                    No access-log lines and no log lines from the functions but errors.
  --index-lag-ms N           Each write reaches the tables' indexes (the v2 listing's reads) after a
                             random delay of 0 to N ms, as DynamoDB's do (default ${DEFAULT_INDEX_LAG_MS}; 0: at once).
  --hold-writes-ms N         Hold writes N ms before applying them, even when their client gave up.
  --hold-writes-every K      With --hold-writes-ms: hold only every Kth write (default 1: every one).
  --address-limit N          Requests one client address may send within ${ADDRESS_LIMIT.windowSeconds} s before it is answered
                             429 ADDRESS_RATE_LIMITED, as the deployed web ACL does (default ${ADDRESS_LIMIT.limit}).
  --webhook-fail-rate R      Take this share (0 to 1) of the webhook deliveries your receiver
                             acknowledges as failed, as if the answer were lost: they come again,
                             with the same webhook-id, on the deployed retry schedule (default 0).
  -h, --help                 This text.

Demo data is written only into an empty store (no order and no key: in memory, a new --data-dir,
tables a failed start left empty), so it never lands among your own orders.`;

const checked = <T>(read: () => T): T => checkedSetting(read, StartUsageError);

/** The start options, `'help'` for --help, or a StartUsageError. */
export function parseStartArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): StartOptions | 'help' {
  const taken = optionTakenByNpm(Object.keys(OPTIONS), env);
  if (taken !== undefined) {
    throw new StartUsageError(
      `npm took --${taken} as its own option: put the stack's options after --, e.g. npm start -- --${taken} ...`,
    );
  }
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs names the option and the mistake; its codes (ERR_PARSE_ARGS_*) mean nothing to a user.
    throw new StartUsageError(`${parseArgsMessage(error)} (npm start -- --help lists the options)`);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [positional] = positionals;
  if (positional !== undefined) {
    throw new StartUsageError(
      `Unexpected argument "${shownArgument(positional)}": npm start takes only options (npm start -- --help)`,
    );
  }
  const options: StartOptions = {
    host: values.host ?? DEFAULT_HOST,
    port: checked(() => portSetting('PORT', env, { name: '--port', value: values.port })),
    dynamodbPort: checked(() =>
      portSetting('DYNAMODB_PORT', env, { name: '--dynamodb-port', value: values['dynamodb-port'] }),
    ),
    demo: !values['no-demo'],
    quiet: values.quiet ?? false,
    indexLagMs: wholeNumber('--index-lag-ms', values['index-lag-ms'], 0) ?? DEFAULT_INDEX_LAG_MS,
  };
  const holdMs = wholeNumber('--hold-writes-ms', values['hold-writes-ms'], 0);
  const every = wholeNumber('--hold-writes-every', values['hold-writes-every'], 1);
  if (every !== undefined && holdMs === undefined)
    throw new StartUsageError('--hold-writes-every goes with --hold-writes-ms (how long to hold those writes)');
  if (holdMs !== undefined && holdMs > 0) options.holdWrites = { ms: holdMs, every: every ?? 1 };
  const limitText = values['address-limit'];
  if (limitText !== undefined) {
    const limit = /^[0-9]{1,10}$/.test(limitText) ? Number(limitText) : NaN;
    if (addressLimitProblem({ ...ADDRESS_LIMIT, limit }) !== undefined)
      throw new StartUsageError(
        `--address-limit must be a whole number from ${WAF_RATE_RULE.minLimit} to ${WAF_RATE_RULE.maxLimit} (what AWS WAF takes), got "${shownArgument(limitText)}"`,
      );
    options.addressLimit = limit;
  }
  const failRate = values['webhook-fail-rate'];
  if (failRate !== undefined) {
    const rate = /^(0(\.[0-9]+)?|1(\.0+)?|\.[0-9]+)$/.test(failRate) ? Number(failRate) : NaN;
    if (Number.isNaN(rate))
      throw new StartUsageError(
        `--webhook-fail-rate must be a share from 0 to 1, such as 0.3, got "${shownArgument(failRate)}"`,
      );
    options.webhookFailRate = rate;
  }
  if (values['data-dir'] !== undefined) {
    if (values['data-dir'] === '') throw new StartUsageError('--data-dir needs a folder');
    options.dataDir = values['data-dir'];
  }
  const endpoint = values['dynamodb-endpoint'];
  if (endpoint !== undefined) {
    options.dynamodbEndpoint = checked(() => dynamoEndpoint(endpoint, '--dynamodb-endpoint'));
    // These belong to the embedded server, which is not started then.
    const embeddedOnly = ['data-dir', 'dynamodb-port', 'index-lag-ms', 'hold-writes-ms', 'hold-writes-every'] as const;
    for (const option of embeddedOnly) {
      if (values[option] !== undefined)
        throw new StartUsageError(`--${option} is for the embedded server; it cannot go with --dynamodb-endpoint`);
    }
  }
  return options;
}

/** Longest wait a Node timer keeps (about 24.8 days); a longer one would fire at once. */
const MAX_MS = 2 ** 31 - 1;

/** An option's whole number, at least `min`, or undefined when the option is absent. */
function wholeNumber(name: string, text: string | undefined, min: 0 | 1): number | undefined {
  if (text === undefined) return undefined;
  const value = /^[0-9]{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= MAX_MS))
    throw new StartUsageError(`${name} must be a whole number from ${min} to ${MAX_MS}, got "${shownArgument(text)}"`);
  return value;
}

/** The one line and exit status `npm start` ends with: a StartUsageError is the user's to fix (2). */
export function startFailure(error: unknown): { line: string; code: number } {
  // One line whatever the error: the SDK's own messages can run to several.
  const message = errorMessage(error).split('\n')[0]?.trim() ?? '';
  return error instanceof StartUsageError
    ? { line: `npm start: ${message}`, code: EXIT_USAGE }
    : { line: `Could not start the local stack: ${message}`, code: EXIT_FAILURE };
}
