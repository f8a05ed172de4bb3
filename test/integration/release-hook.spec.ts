// The pre-traffic hook's checks against the real handlers, invoked as Lambda would and answering
// as Invoke returns them, on the embedded server: the answers a healthy version gives pass, and
// a version answering otherwise fails the release.

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { composeService, type Service } from '../../lib/root/service';
import { RELEASE_HOOK_TIMEOUT_SECONDS, type FunctionId } from '../../lib/contract/deployment';
import {
  HOOK_BOUNDS,
  HOOK_ENV,
  hookDepsFromEnvironment,
  HookTimeout,
  makeReleaseHook,
  type HookDeps,
  type HookEvent,
} from '../../infra/release-hook/handler';
import {
  CANARY_KEY_MISSING,
  RELEASE_CHECKS,
  type InvokeAnswer,
  type ReleaseCheck,
} from '../../infra/release-hook/checks';
import { hashApiKey, keyIdFromHash } from '../../lib/core/access/key-format';
import { UNAUTHORIZED_MESSAGE } from '../../lib/edge/authorizer';
import { VirtualTime } from '../support/virtual-time';
import { createApiKey } from '../../lib/stores/key-service';
import { invokeStreamed } from '../../tools/local/invoke';
import { framePrelude, installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { lambdaContext } from '../../tools/local/proxy-event';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let service: Service;
/** The stage's canary key: a real key in the keys table, as docs/operations.md has one stored. */
let canaryKey: string;

beforeAll(async () => {
  installLocalLambdaRuntime();
  tables = await createTestTables();
  service = composeService({ endpoint: tables.endpoint, tables: tables.names });
  ({ key: canaryKey } = await createApiKey(service.stores.keys, {
    plan: 'free',
    scope: 'read',
    name: 'release-canary',
  }));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await tables.drop();
});

/** A local HTTP server standing in for an AWS endpoint; each test gives it its behaviour. */
const server = createServer();
async function listening(): Promise<string> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const FUNCTION_IDS = Object.keys(RELEASE_CHECKS) as FunctionId[];

/** What Invoke returns for a call of `id`'s handler: a thrown error is a function error, as Lambda reports it. */
async function invoke(id: FunctionId, event: unknown, on: Service = service): Promise<InvokeAnswer> {
  const context = lambdaContext(id);
  try {
    if (id === 'authorizer') {
      const result = await on.authorizer(event as APIGatewayTokenAuthorizerEvent, context);
      return { payload: Buffer.from(JSON.stringify(result)) };
    }
    if (id === 'cancel-order' || id === 'webhook-endpoints') {
      const handler = id === 'cancel-order' ? service.cancelOrder : service.webhookEndpoints;
      const result = await handler(event as APIGatewayProxyEvent, context);
      return { payload: Buffer.from(JSON.stringify(result)) };
    }
    const chunks: Buffer[] = [];
    const { done } = invokeStreamed(service.listOrders, event as APIGatewayProxyEvent, context, {
      head: (statusCode, headers) => chunks.push(...framePrelude({ statusCode, headers })),
      write: async (chunk) => void chunks.push(chunk),
      end: () => undefined,
    });
    await done;
    return { payload: Buffer.concat(chunks) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { functionError: 'Unhandled', payload: Buffer.from(JSON.stringify({ errorMessage: message })) };
  }
}

const EVENT: HookEvent = { DeploymentId: 'd-TEST', LifecycleEventHookExecutionId: 'hook-1' };
/** The hook's deployed timeout, in ms (the contract declares it; the construct deploys it). */
const TIMEOUT_MS = RELEASE_HOOK_TIMEOUT_SECONDS * 1000;
/** Lambda's context at the start of an invocation, as far as the hook reads it. */
const CONTEXT = { getRemainingTimeInMillis: () => TIMEOUT_MS };

/** The hook of `functionId`, invoking `runs` instead, with every report it makes. */
function hookOf(functionId: FunctionId, runs: HookDeps['invoke'], overrides: Partial<HookDeps> = {}) {
  const reports: [HookEvent, string][] = [];
  const hook = makeReleaseHook({
    target: () => ({ functionId, versionArn: `arn:aws:lambda:local:000000000000:function:${functionId}:7` }),
    invoke: runs,
    canaryKey: async () => canaryKey,
    report: async (event, status) => void reports.push([event, status]),
    ...overrides,
  });
  return { hook, reports };
}

test.each(FUNCTION_IDS)('a healthy version of %s passes its checks, and the hook reports Succeeded', async (id) => {
  const { hook, reports } = hookOf(id, (_arn, event) => invoke(id, event));
  await expect(hook(EVENT, CONTEXT)).resolves.toBe('Succeeded');
  expect(reports).toEqual([[EVENT, 'Succeeded']]);
});

test.each(FUNCTION_IDS)('a version of %s that answers like another function fails the release', async (id) => {
  const other = FUNCTION_IDS.find((f) => f !== id) as FunctionId;
  const { hook, reports } = hookOf(id, (_arn, event) => invoke(other, event));
  await expect(hook(EVENT, CONTEXT)).resolves.toBe('Failed');
  expect(reports).toEqual([[EVENT, 'Failed']]);
});

test('a version that cannot be invoked fails the release', async () => {
  const { hook, reports } = hookOf('cancel-order', async () => {
    throw new Error('ResourceNotFoundException');
  });
  await expect(hook(EVENT, CONTEXT)).resolves.toBe('Failed');
  expect(reports).toEqual([[EVENT, 'Failed']]);
});

test('the hook invokes the version it was given, never the function or an alias', async () => {
  const invoked: string[] = [];
  const { hook } = hookOf('list-orders', (arn, event) => {
    invoked.push(arn);
    return invoke('list-orders', event);
  });
  await hook(EVENT, CONTEXT);
  expect(invoked).toEqual(
    RELEASE_CHECKS['list-orders'].map(() => 'arn:aws:lambda:local:000000000000:function:list-orders:7'),
  );
});

test('an authorizer version that refuses every key, valid ones included, fails the release', async () => {
  // The same code, on a keys store that finds no key: every key is unknown to it.
  const blind = composeService({
    endpoint: tables.endpoint,
    tables: tables.names,
    standIns: { keys: { get: async () => undefined } as unknown as Service['stores']['keys'] },
  });
  const { hook, reports } = hookOf('authorizer', (_arn, event) => invoke('authorizer', event, blind));
  await expect(hook(EVENT, CONTEXT)).resolves.toBe('Failed');
  expect(reports).toEqual([[EVENT, 'Failed']]);
});

test('the canary check sends the canary key and passes only on an Allow for that key', async () => {
  const sent: string[] = [];
  const { hook } = hookOf('authorizer', (_arn, event) => {
    sent.push((event as { authorizationToken: string }).authorizationToken);
    return invoke('authorizer', event);
  });
  await expect(hook(EVENT, CONTEXT)).resolves.toBe('Succeeded');
  expect(sent).toHaveLength(RELEASE_CHECKS.authorizer.length);
  expect(sent).toContain(`Bearer ${canaryKey}`);
});

// CodeDeploy waits for a report up to its hook timeout (an hour): whatever throws, the hook reports.
test.each([
  ['the canary key secret cannot be read', { canaryKey: () => Promise.reject(new Error('AccessDeniedException')) }],
  ['the canary key secret holds no key yet', { canaryKey: async () => 'a-generated-placeholder' }],
  [
    "the hook's environment names no function",
    {
      target: () => {
        throw new Error('RELEASE_FUNCTION_ID and RELEASE_VERSION_ARN must name a service function and its version');
      },
    },
  ],
  [
    'a check throws while preparing its request',
    {
      checks: {
        ...RELEASE_CHECKS,
        authorizer: [{ name: 'throws', prepare: () => Promise.reject(new TypeError('boom')) }],
      },
    },
  ],
] as [string, Partial<HookDeps>][])('when %s, the hook still reports Failed', async (_case, overrides) => {
  const { hook, reports } = hookOf('authorizer', (_arn, event) => invoke('authorizer', event), overrides);
  await expect(hook(EVENT, CONTEXT)).resolves.toBe('Failed');
  expect(reports).toEqual([[EVENT, 'Failed']]);
});

test('the canary check names what to do when the secret holds no key', async () => {
  const check = RELEASE_CHECKS.authorizer.find((c) => c.name.includes('canary'));
  await expect(check?.prepare({ canaryKey: async () => 'placeholder' })).rejects.toThrow(CANARY_KEY_MISSING);
});

// Lambda stops a hook at its timeout without running its `finally`: whatever hangs, the hook must
// report before then. On a virtual clock (test/support/virtual-time.ts): no test waits for real time.
describe('the hook reports within its own time, whatever hangs', () => {
  const START = Date.UTC(2026, 10, 20, 12);
  const never = () => new Promise<never>(() => {});
  /** An authorizer's answers as a healthy version gives them, without I/O (the clock is virtual). */
  const refusal: InvokeAnswer = {
    functionError: 'Unhandled',
    payload: Buffer.from(JSON.stringify({ errorMessage: UNAUTHORIZED_MESSAGE })),
  };

  function onVirtualTime(
    functionId: FunctionId,
    given: Partial<HookDeps> | ((time: VirtualTime) => Partial<HookDeps>),
  ) {
    const time = new VirtualTime(START);
    const overrides = typeof given === 'function' ? given(time) : given;
    const reports: [string, number][] = [];
    const hook = makeReleaseHook({
      target: () => ({ functionId, versionArn: `arn:aws:lambda:local:000000000000:function:${functionId}:7` }),
      invoke: never,
      canaryKey: async () => canaryKey,
      report: async (_event, status) => void reports.push([status, time.now() - START]),
      timers: time.asTimers,
      ...overrides,
    });
    const context = { getRemainingTimeInMillis: () => START + TIMEOUT_MS - time.now() };
    return { run: () => time.run(hook(EVENT, context)), reports, elapsed: () => time.now() - START };
  }

  test("a new version that never answers is reported Failed when its call's bound is up, its request aborted", async () => {
    const signals: AbortSignal[] = [];
    const { run, reports } = onVirtualTime('list-orders', {
      invoke: (_arn, _event, signal) => {
        signals.push(signal);
        return never();
      },
    });
    await expect(run()).resolves.toBe('Failed');
    expect(reports).toEqual([['Failed', HOOK_BOUNDS.callMs]]);
    expect(signals.map((signal) => signal.aborted)).toEqual([true]);
    // Well inside the timeout: the report, and Lambda's end of the invocation, still fit after it.
    expect(HOOK_BOUNDS.callMs + HOOK_BOUNDS.reportMs + HOOK_BOUNDS.marginMs).toBeLessThan(TIMEOUT_MS);
  });

  test("a canary key secret that never answers fails the authorizer's release in time", async () => {
    const { run, reports } = onVirtualTime('authorizer', { invoke: async () => refusal, canaryKey: never });
    await expect(run()).resolves.toBe('Failed');
    expect(reports).toEqual([['Failed', HOOK_BOUNDS.callMs]]);
  });

  test('checks that hang outside any call are cut a quarter before the timeout, leaving the report its time', async () => {
    const hanging: ReleaseCheck = { name: 'hangs while preparing', prepare: never };
    const { run, reports } = onVirtualTime('cancel-order', {
      checks: { ...RELEASE_CHECKS, 'cancel-order': [hanging] },
    });
    await expect(run()).resolves.toBe('Failed');
    expect(reports).toEqual([['Failed', TIMEOUT_MS - HOOK_BOUNDS.reportMs - HOOK_BOUNDS.marginMs]]);
  });

  test('slow calls that each answer within their bound still pass', async () => {
    const slow = HOOK_BOUNDS.callMs - 1;
    const allow: InvokeAnswer = {
      payload: Buffer.from(
        JSON.stringify({
          principalId: keyIdFromHash(hashApiKey(canaryKey)),
          policyDocument: { Statement: [{ Effect: 'Allow' }] },
        }),
      ),
    };
    const { run, reports } = onVirtualTime('authorizer', (time) => ({
      invoke: async (_arn, event) => {
        await time.sleep(slow);
        return (event as { authorizationToken: string }).authorizationToken === `Bearer ${canaryKey}` ? allow : refusal;
      },
      canaryKey: async () => {
        await time.sleep(slow);
        return canaryKey;
      },
    }));
    await expect(run()).resolves.toBe('Succeeded');
    // The secret read and two invocations, one after the other.
    expect(reports).toEqual([['Succeeded', 3 * slow]]);
  });

  test('a report that never answers ends the invocation with an error before the timeout, not at it', async () => {
    const hanging: ReleaseCheck = { name: 'hangs while preparing', prepare: never };
    const { run, elapsed } = onVirtualTime('cancel-order', {
      checks: { ...RELEASE_CHECKS, 'cancel-order': [hanging] },
      report: never,
    });
    await expect(run()).rejects.toThrow(HookTimeout);
    expect(elapsed()).toBe(TIMEOUT_MS - HOOK_BOUNDS.marginMs);
  });
});

test("the deployed hook's Invoke is an SDK call its bound aborts: the request is dropped, not left running", async () => {
  // Lambda's endpoint as a new version that never answers: the request arrives, no response ever comes.
  let arrived = false;
  const dropped = new Promise<void>((resolve) => {
    server.once('request', (request: IncomingMessage) => {
      arrived = true;
      request.socket.once('close', () => resolve());
    });
  });
  const endpoint = await listening();
  const aws = { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };
  const clients = {
    lambda: new LambdaClient(aws),
    codeDeploy: new CodeDeployClient(aws),
    secretsManager: new SecretsManagerClient(aws),
  };
  const time = new VirtualTime(Date.UTC(2026, 10, 20, 12));
  const reports: string[] = [];
  const deps = hookDepsFromEnvironment(
    { [HOOK_ENV.functionId]: 'list-orders', [HOOK_ENV.versionArn]: 'arn:aws:lambda:us-east-1:1:function:f:7' },
    clients,
  );
  const hook = makeReleaseHook({
    ...deps,
    report: async (_event, status) => void reports.push(status),
    timers: time.asTimers,
  });
  try {
    // The virtual clock moves only once the request is at the server (real I/O, a few ms).
    await expect(time.run(hook(EVENT, CONTEXT), { busy: () => !arrived })).resolves.toBe('Failed');
    await dropped;
    expect(reports).toEqual(['Failed']);
  } finally {
    for (const client of Object.values(clients)) client.destroy();
  }
});
