import type { Output } from '../shared/output';
import type { AdminTarget } from './target';
import type { ToolClock } from '../shared/aws-time';

// The shape of one admin command. A command is one record (commands/*.ts) listed once in
// commands/index.ts; the parser, the usage text and the runner all read it from there.

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** What the option's value looks like in the usage text, e.g. "N"; string options only. */
  value?: string;
  /** Shown without brackets in the usage text. The command's `parse` still checks it is there. */
  required?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean;
};

/** What a running command is given. */
export interface CommandContext {
  target: AdminTarget;
  out: Output;
  /**
   * The time a command decides a revocation, a window or a key's createdAt by: AWS's, the target's
   * clock unless a test fixes it. Stamps come from the target's clock (target.clock.check first).
   */
  clock: Pick<ToolClock, 'checkedNow'>;
  /** Aborted on Ctrl-C: a long command stops cleanly and says what it did. */
  signal?: AbortSignal;
}

export interface CommandSpec<O extends OptionSpecs, A> {
  /** The words that name it, e.g. "keys create". */
  name: string;
  options: O;
  /** Its positional arguments as shown in the usage text, e.g. "<key-id>". */
  arguments: readonly string[];
  /** Its description in the usage text: lines, indented there. */
  help: readonly string[];
  /** The checked arguments, or a UsageError. Only this command's options reach it. */
  parse(input: { values: OptionValues<O>; args: readonly string[] }): A;
  run(args: A, context: CommandContext): Promise<void>;
}

/** A command with its argument type hidden: `prepare` checks the command line and binds `run` to it. */
export interface AdminCommand extends Pick<
  CommandSpec<OptionSpecs, unknown>,
  'name' | 'options' | 'arguments' | 'help'
> {
  prepare(input: {
    values: Readonly<Record<string, string | boolean | undefined>>;
    args: readonly string[];
  }): (context: CommandContext) => Promise<void>;
}

export function defineCommand<O extends OptionSpecs, A>(spec: CommandSpec<O, A>): AdminCommand {
  return {
    ...spec,
    prepare: (input) => {
      // The parser lets through only options this command declares, with their declared types.
      const args = spec.parse({ values: input.values as OptionValues<O>, args: input.args });
      return (context) => spec.run(args, context);
    },
  };
}
