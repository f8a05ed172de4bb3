// The command line of the admin and smoke commands: node:util parseArgs, strict, with its mistakes
// as UsageErrors, and --stage checked against the declared stages.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isStageName, STAGE_NAMES, type StageName } from '../../lib/contract/deployment';
import { parseArgsMessage, UsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options and words of `argv`, or a UsageError saying what is wrong with them. */
export function parseOptions<const O extends Options>(argv: readonly string[], options: O, allowPositionals = false) {
  try {
    const parsed = parseArgs({ args: [...argv], options, allowPositionals, strict: true, tokens: true });
    // parseArgs keeps the last of a repeated option; a repeat is more likely a mistake than intent.
    const seen = new Set<string>();
    for (const token of parsed.tokens) {
      if (token.kind !== 'option') continue;
      if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
      seen.add(token.name);
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // parseArgs' own messages name the option and what was wrong with it.
    const message = parseArgsMessage(error);
    // `orders ship -5`: a value that starts with a dash reads as an option; say how to give it.
    const dashed = /^Unknown option '(-\d[^']*)'$/.exec(message)?.[1];
    throw new UsageError(
      dashed === undefined
        ? message
        : `${message}: to give a value that starts with -, put -- before it (-- ${dashed})`,
    );
  }
}

/** The --stage given, if any, as a declared stage. */
export function stageOption(value: unknown): StageName | undefined {
  if (value === undefined) return undefined;
  if (!isStageName(value)) throw new UsageError(`--stage must be one of ${STAGE_NAMES.join(', ')}`);
  return value;
}
