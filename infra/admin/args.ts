import { parseArgs } from 'node:util';
import { KEY_PREFIX } from '../../lib/keys/format';
import { canonicalInt64 } from '../../lib/orders/order';
import { isPlanName, MAX_CUSTOM_LIMITS, PLAN_NAMES, type Limits, type PlanName } from '../../lib/limits/plans';
import { isStageName, STAGE_NAMES, type StageName } from '../outputs';
import { UsageError } from './errors';

export type Command =
  | { kind: 'help' }
  | { kind: 'keys create'; plan: PlanName; name?: string; limits?: Limits; json: boolean }
  | { kind: 'keys list'; json: boolean }
  | { kind: 'keys revoke'; id: string }
  | { kind: 'orders import'; file: string }
  | { kind: 'orders ship'; id: string };

export interface CommandLine {
  stage?: StageName;
  command: Command;
}

/** Every option of every command; each command then says which of them it takes. */
const OPTIONS = {
  stage: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  plan: { type: 'string' },
  name: { type: 'string' },
  rpm: { type: 'string' },
  rpd: { type: 'string' },
  json: { type: 'boolean' },
} as const;
type OptionName = keyof typeof OPTIONS;
type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean };

const COMMAND_OPTIONS: Record<Exclude<Command['kind'], 'help'>, { options: OptionName[]; positionals: string[] }> = {
  'keys create': { options: ['plan', 'name', 'rpm', 'rpd', 'json'], positionals: [] },
  'keys list': { options: ['json'], positionals: [] },
  'keys revoke': { options: [], positionals: ['<key-id>'] },
  'orders import': { options: [], positionals: ['<file.json>'] },
  'orders ship': { options: [], positionals: ['<order-id>'] },
};

const KEY_ID_PATTERN = /^key_[0-9a-f]{20}$/;
const NAME_MAX_LENGTH = 100;

/** Arguments are echoed in messages, except anything that may be an API key. */
function shown(text: string): string {
  return text.includes(KEY_PREFIX) ? '(hidden: it looks like an API key)' : text;
}

function isCommandKind(text: string): text is keyof typeof COMMAND_OPTIONS {
  return Object.hasOwn(COMMAND_OPTIONS, text);
}

function parseTokens(argv: readonly string[]): { values: Values; positionals: string[] } {
  try {
    const { values, positionals, tokens } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
    // parseArgs keeps the last of a repeated option; a repeat is more likely a mistake than intent.
    const seen = new Set<string>();
    for (const token of tokens) {
      if (token.kind !== 'option') continue;
      if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
      seen.add(token.name);
    }
    return { values, positionals };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // parseArgs' own messages name the option and what was wrong with it.
    throw new UsageError(shown(error instanceof Error ? error.message : String(error)));
  }
}

/** A limit given on the command line: a plain positive integer within the accepted maximum. */
function limitOption(text: string | undefined, option: string, max: number): number {
  const value = text !== undefined && /^[1-9][0-9]*$/.test(text) ? Number(text) : NaN;
  if (!(value <= max)) throw new UsageError(`--${option} must be a whole number from 1 to ${max}`);
  return value;
}

function keysCreate(values: Values): Command {
  const { plan, name, rpm, rpd } = values;
  if (plan === undefined) throw new UsageError(`keys create needs --plan (${PLAN_NAMES.join(', ')})`);
  if (!isPlanName(plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  const command: Command = { kind: 'keys create', plan, json: values.json ?? false };
  if (name !== undefined) {
    // The name is shown in listings; control characters would garble a terminal.
    if (name.trim() === '' || name.length > NAME_MAX_LENGTH || /\p{Cc}/u.test(name)) {
      throw new UsageError(`--name must be 1 to ${NAME_MAX_LENGTH} printable characters`);
    }
    command.name = name;
  }
  if (plan !== 'enterprise') {
    if (rpm !== undefined || rpd !== undefined) {
      throw new UsageError(`--rpm and --rpd are only for enterprise keys; the ${plan} plan has fixed limits`);
    }
    return command;
  }
  if (rpm === undefined || rpd === undefined) {
    throw new UsageError('An enterprise key needs both --rpm (requests per minute) and --rpd (requests per day)');
  }
  const limits = {
    perMinute: limitOption(rpm, 'rpm', MAX_CUSTOM_LIMITS.perMinute),
    perDay: limitOption(rpd, 'rpd', MAX_CUSTOM_LIMITS.perDay),
  };
  // A daily limit under the per-minute one is almost certainly the two swapped.
  if (limits.perDay < limits.perMinute) throw new UsageError('--rpd (per day) must be at least --rpm (per minute)');
  command.limits = limits;
  return command;
}

function keyId(text: string): string {
  if (text.startsWith(KEY_PREFIX)) {
    // Never echoed: it may be a real key, and terminals and CI logs keep what is printed.
    throw new UsageError('That looks like an API key, not a key id: pass the id (key_...) that `keys list` shows');
  }
  if (!KEY_ID_PATTERN.test(text)) {
    throw new UsageError('A key id is key_ followed by 20 hexadecimal digits, as `keys list` shows');
  }
  return text;
}

function orderId(text: string): string {
  const id = canonicalInt64(text);
  if (id === undefined) throw new UsageError(`Order id "${shown(text)}" is not a decimal integer in the int64 range`);
  return id;
}

/** The command line as a command, or a UsageError saying what is wrong with it. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const { values, positionals } = parseTokens(argv);
  const line: CommandLine = { command: { kind: 'help' } };
  if (values.stage !== undefined) {
    if (!isStageName(values.stage)) throw new UsageError(`--stage must be one of ${STAGE_NAMES.join(', ')}`);
    line.stage = values.stage;
  }
  const [group, action, ...rest] = positionals;
  if (values.help || group === 'help') return line;
  if (group === undefined) throw new UsageError('No command given');
  const kind = `${group} ${action ?? ''}`.trim();
  if (!isCommandKind(kind)) {
    const known = group === 'keys' || group === 'orders';
    throw new UsageError(known && action === undefined ? `${group} needs a command` : `Unknown command "${shown(kind)}"`);
  }
  const spec = COMMAND_OPTIONS[kind];
  for (const option of Object.keys(values) as OptionName[]) {
    if (option !== 'stage' && !spec.options.includes(option)) {
      throw new UsageError(`${kind} does not take --${option}`);
    }
  }
  if (rest.length !== spec.positionals.length) {
    const wanted = spec.positionals.length === 0 ? 'no arguments' : spec.positionals.join(' ');
    throw new UsageError(`${kind} takes ${wanted}`);
  }
  const [argument = ''] = rest;
  switch (kind) {
    case 'keys create':
      line.command = keysCreate(values);
      break;
    case 'keys list':
      line.command = { kind, json: values.json ?? false };
      break;
    case 'keys revoke':
      line.command = { kind, id: keyId(argument) };
      break;
    case 'orders import':
      line.command = { kind, file: argument };
      break;
    case 'orders ship':
      line.command = { kind, id: orderId(argument) };
      break;
  }
  return line;
}
