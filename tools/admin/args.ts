import { STAGE_NAMES, type StageName } from '../../lib/contract/deployment';
import type { AdminCommand, CommandContext, OptionSpecs } from './command';
import { COMMANDS } from './commands';
import { parseOptions, stageOption } from '../shared/args';
import { shownArgument, UsageError } from '../shared/errors';

/** Options every command takes; the usage text describes them under "Options". */
export const GLOBAL_OPTIONS = {
  stage: { type: 'string', value: STAGE_NAMES.join('|') },
  help: { type: 'boolean', short: 'h' },
} as const;

export type CommandLine =
  | { help: true; stage?: StageName }
  | { help: false; stage?: StageName; command: AdminCommand; run: (context: CommandContext) => Promise<void> };

/** Single-valued options only: a repeated option is refused below, so values are never arrays. */
type ParserOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** Every command's options together: parseArgs reads the line once, then the command says which it takes. */
function allOptions(commands: readonly AdminCommand[]): ParserOptions {
  const options: ParserOptions = { ...GLOBAL_OPTIONS };
  for (const command of commands) {
    for (const [name, spec] of Object.entries(command.options)) {
      const known = options[name];
      // One parse for all commands needs one type per option name.
      if (known && known.type !== spec.type)
        throw new Error(`--${name} is a ${known.type} in one command, a ${spec.type} in another`);
      options[name] = { type: spec.type };
    }
  }
  return options;
}

const OPTIONS = allOptions(COMMANDS);
/** Every option name the command line knows, for spotting the ones npm took (shared/npm-options.ts). */
export const OPTION_NAMES: readonly string[] = Object.keys(OPTIONS);
const COMMAND_BY_NAME = new Map(COMMANDS.map((command) => [command.name, command]));
const GROUPS = new Set(COMMANDS.map((command) => command.name.split(' ')[0]));

function checkOptions(command: AdminCommand, values: Record<string, unknown>): void {
  for (const option of Object.keys(values)) {
    if (!Object.hasOwn(GLOBAL_OPTIONS, option) && !Object.hasOwn(command.options, option)) {
      throw new UsageError(`${command.name} does not take --${option}`);
    }
  }
}

/** The command line as a command bound to its arguments, or a UsageError saying what is wrong with it. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const { values, positionals } = parseOptions(argv, OPTIONS, true);
  const stage = stageOption(values.stage);
  const where = stage ? { stage } : {};
  const [group, action, ...rest] = positionals;
  if (values.help || group === 'help') return { help: true, ...where };
  if (group === undefined) throw new UsageError('No command given');
  const name = `${group} ${action ?? ''}`.trim();
  const command = COMMAND_BY_NAME.get(name);
  if (!command) {
    throw new UsageError(
      GROUPS.has(group) && action === undefined
        ? `${group} needs a command`
        : `Unknown command "${shownArgument(name)}"`,
    );
  }
  checkOptions(command, values);
  if (rest.length !== command.arguments.length) {
    const wanted = command.arguments.length === 0 ? 'no arguments' : command.arguments.join(' ');
    throw new UsageError(`${command.name} takes ${wanted}`);
  }
  const { stage: _stage, help: _help, ...own } = values;
  return { help: false, ...where, command, run: command.prepare({ values: own, args: rest }) };
}

/** How a command is written in the usage text, from its record. */
export function synopsis(command: { name: string; options: OptionSpecs; arguments: readonly string[] }): string {
  const options = Object.entries(command.options).map(([name, spec]) => {
    const text = spec.type === 'string' ? `--${name} ${spec.value ?? 'VALUE'}` : `--${name}`;
    return spec.required ? text : `[${text}]`;
  });
  return [command.name, ...command.arguments, ...options].join(' ');
}
