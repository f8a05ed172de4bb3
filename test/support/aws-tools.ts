// The Python tools some tests run (`npm run setup:aws-tools` installs them with pipx): found by
// looking for an executable on PATH, which costs nothing, rather than by running the tool (a
// Python start and its imports: seconds of CPU for `cfn-lint --version`).
import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';

/** Why `command` cannot run here (none on PATH that this user may execute), or undefined. */
export function toolMissing(command: string): string | undefined {
  const found = (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return found
    ? undefined
    : `${command} is not installed or not executable by this user (npm run setup:aws-tools installs it)`;
}
