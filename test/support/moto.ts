// moto_server (`npm run setup:aws-tools`), a real AWS-protocol server, for the admin
// and smoke commands' API Gateway, CloudFormation and Secrets Manager calls and the functions' secret reads: started once per test file on a free
// port, reset between tests when a file asks, stopped after. It speaks the services' own wire
// protocols, so the SDK's serialisation, pagination and error mapping are exercised, not mocked.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { APIGatewayClient, CreateUsagePlanCommand } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { toolMissing } from './aws-tools';
import { inCi } from './ci';

export const MOTO_REGION = 'eu-west-1';

/** Why moto_server cannot run here, or undefined. */
export const motoMissing: string | undefined = toolMissing('moto_server');

/**
 * `describe` for tests that need moto_server. Where it is missing outside CI they do not run, and
 * their name and the console say why; in CI (CI=true) they run, and a missing server fails them.
 */
export function describeWithMoto(name: string, body: () => void): void {
  if (motoMissing === undefined || inCi) return describe(name, body);
  process.stderr.write(`${expect.getState().testPath ?? 'a test file'}: ${name} did not run: ${motoMissing}\n`);
  describe.skip(`${name} [not run: ${motoMissing}]`, body);
}
const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };

export interface Moto {
  endpoint: string;
  /** A new client of moto's CloudFormation (in MOTO_REGION unless given: moto keeps each Region apart). */
  cloudFormation(region?: string): CloudFormationClient;
  apiGateway(region?: string): APIGatewayClient;
  secretsManager(region?: string): SecretsManagerClient;
  /** Forgets every resource (moto's own reset endpoint). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Resolves once the server says it listens (werkzeug's "Running on" line on stderr). */
function listening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Running on')) resolve();
    });
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error('moto_server is not installed: run npm run setup:aws-tools (it installs moto[server] with pipx)')
          : error,
      ),
    );
    child.once('exit', (code) => reject(new Error(`moto_server exited (${code}) before listening: ${seen}`)));
  });
}

export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  await listening(child);
  const endpoint = `http://127.0.0.1:${port}`;
  const where = (region = MOTO_REGION) => ({ endpoint, region, credentials });
  return {
    endpoint,
    cloudFormation: (region) => new CloudFormationClient(where(region)),
    apiGateway: (region) => new APIGatewayClient(where(region)),
    secretsManager: (region) => new SecretsManagerClient(where(region)),
    reset: async () => {
      const answer = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
      if (!answer.ok) throw new Error(`moto reset answered ${answer.status}`);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** One usage plan per plan name in moto's API Gateway, as a stage stack has; their ids by plan. */
export async function createUsagePlans<P extends string>(
  apiGateway: APIGatewayClient,
  plans: readonly P[],
  prefix: string,
): Promise<Record<P, string>> {
  const ids = {} as Record<P, string>;
  for (const plan of plans) {
    const { id } = await apiGateway.send(new CreateUsagePlanCommand({ name: `${prefix}-${plan}` }));
    if (!id) throw new Error('moto gave no usage plan id');
    ids[plan] = id;
  }
  return ids;
}

/** A stack in moto's CloudFormation with these outputs (and one resource that does nothing). */
export async function createStackWithOutputs(
  cloudFormation: CloudFormationClient,
  stackName: string,
  outputs: Record<string, string>,
): Promise<void> {
  const template = {
    Resources: { Placeholder: { Type: 'AWS::CloudFormation::WaitConditionHandle' } },
    Outputs: Object.fromEntries(Object.entries(outputs).map(([key, value]) => [key, { Value: value }])),
  };
  await cloudFormation.send(new CreateStackCommand({ StackName: stackName, TemplateBody: JSON.stringify(template) }));
}

/**
 * Makes the next calls of one command fail with this error, before they are sent: the faults moto
 * cannot produce (throttling, a usage plan vanishing mid-run), through the SDK's own middleware.
 */
export function failNext(
  client: APIGatewayClient | CloudFormationClient | SecretsManagerClient,
  commandName: string,
  error: Error,
  times = 1,
): void {
  let left = times;
  // Each client's stack is typed by its own commands; this middleware reads none of them.
  (client.middlewareStack as CloudFormationClient['middlewareStack']).add(
    (next, context) => (args) => {
      if (context.commandName === commandName && left > 0) {
        left--;
        return Promise.reject(error);
      }
      return next(args);
    },
    { step: 'initialize', name: `failNext-${commandName}-${Math.random()}` },
  );
}

/** The inputs a client sends with one command, recorded as they go (the calls still reach moto). */
export function recordInputs<T = Record<string, unknown>>(
  client: APIGatewayClient | CloudFormationClient,
  commandName: string,
): T[] {
  const inputs: T[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName === commandName) inputs.push(args.input as T);
      return next(args);
    },
    { step: 'initialize', name: `record-${commandName}-${Math.random()}` },
  );
  return inputs;
}

/**
 * moto 5.2 answers 500 to deleting a usage-plan binding that is already gone; AWS answers
 * NotFoundException. With this, a client deleting a binding twice gets AWS's answer the second time.
 */
export function bindingsDeletedOnceLikeAws(client: APIGatewayClient): void {
  const deleted = new Set<string>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'DeleteUsagePlanKeyCommand') return next(args);
      const { usagePlanId, keyId } = args.input as { usagePlanId?: string; keyId?: string };
      const binding = `${usagePlanId}/${keyId}`;
      if (deleted.has(binding)) {
        throw Object.assign(new Error('Invalid Usage Plan Key identifier specified'), { name: 'NotFoundException' });
      }
      const result = await next(args);
      deleted.add(binding);
      return result;
    },
    { step: 'initialize', name: 'bindingsDeletedOnceLikeAws' },
  );
}
