// AWS's CloudFormation linter over every template of the shared synthesis (stages, account and
// pipeline stacks): no finding, or one ignored in .cfnlintrc.yaml with its reason. cfn-lint is a
// Python command (`npm run setup:aws-tools`); where it is missing outside CI this says so in the
// test's name and on the console, and in CI (CI=true) a missing linter fails.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { toolMissing } from '../support/aws-tools';
import { inCi } from '../support/ci';
import { synthesiseStages } from './synth';

const ROOT = path.join(__dirname, '..', '..');
const CONFIG = path.join(ROOT, '.cfnlintrc.yaml');
const missing = toolMissing('cfn-lint');

interface Linted {
  templates: string[];
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs cfn-lint over the assembly's templates: exit status 0 and no output when nothing is found. */
function lint(): Promise<Linted> {
  const { assemblyDir } = synthesiseStages();
  const templates = readdirSync(assemblyDir)
    .filter((name) => name.endsWith('.template.json'))
    .map((name) => path.join(assemblyDir, name));
  const args = ['--config-file', CONFIG, '--format', 'parseable', '--', ...templates];
  return new Promise((resolve) => {
    execFile('cfn-lint', args, { encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ templates, code, stdout, stderr });
    });
  });
}

if (missing === undefined) {
  // Started before the file's first test and left running: the linter (a Python process) works
  // beside the other specs of the shared synthesis instead of after them.
  let linted: Promise<Linted>;
  beforeAll(() => {
    linted = lint();
  });

  describe('cfn-lint', () => {
    test('finds nothing in any synthesised template', async () => {
      const { templates, code, stdout, stderr } = await linted;
      expect(templates.length).toBeGreaterThanOrEqual(4);
      expect(stdout.split('\n').filter(Boolean)).toEqual([]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
    });
  });
} else {
  describe(`cfn-lint did not run: ${missing}`, () => {
    test(inCi ? 'CI=true: a missing cfn-lint fails' : 'outside CI it is reported, not run', () => {
      if (inCi) throw new Error(`${missing}; the pipeline's test job runs npm run setup:aws-tools`);
      // One plain line (console.warn would add jest's code frame around it).
      process.stderr.write(`cfn-lint did not run over the synthesised templates: ${missing}.\n`);
    });
  });
}
