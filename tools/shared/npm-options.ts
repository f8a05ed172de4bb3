// `npm run admin keys list --json` (no `--`) hands `--json` to npm, which keeps it as its own config
// and tells the script only through the environment (npm_config_json=true). The commands look
// there for their own option names, so such a run stops with the fix instead of silently
// running without the option.

import { isEnvSet } from '../../lib/commons/env';

/** The environment variable npm sets for `--name`; npm reads `--no-x` as its config `x` set to false. */
function npmVariable(option: string): string {
  return `npm_config_${option.replace(/^no-/, '').replaceAll('-', '_')}`;
}

/** The first of these options that npm took for itself, going by the variables it set. */
export function optionTakenByNpm(options: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  // --help never reaches a script: npm answers it with its own help.
  return options.find((option) => option !== 'help' && isEnvSet(npmVariable(option), env));
}

/**
 * The one-line fix when npm took one of `options`, else undefined. `script` is the npm script
 * (`admin`, `smoke`); `words` are the arguments that did reach the command, shown in the example.
 */
export function npmTookOptionMessage(
  script: string,
  options: readonly string[],
  words: readonly string[],
  env: NodeJS.ProcessEnv,
): string | undefined {
  const taken = optionTakenByNpm(options, env);
  if (taken === undefined) return undefined;
  const example = [...words.filter((word) => !word.startsWith('-')).slice(0, 2), `--${taken}`].join(' ');
  return (
    `npm took --${taken} as its own option: put the command's arguments after --, ` +
    `e.g. npm run ${script} -- ${example}`
  );
}
