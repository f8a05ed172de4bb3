// The pre-traffic hook's checks against the real handlers, invoked as Lambda would and answering
// as Invoke returns them, on the embedded server: the answers a healthy version gives pass, and
// a version answering otherwise fails the release.

import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { composeService, type Service } from '../../lib/root/service';
import type { FunctionId } from '../../lib/contract/deployment';
import { makeReleaseHook, type HookDeps, type HookEvent } from '../../infra/release-hook/handler';
import { CANARY_KEY_MISSING, RELEASE_CHECKS, type InvokeAnswer } from '../../infra/release-hook/checks';
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
afterAll(() => tables.drop());

const FUNCTION_IDS = Object.keys(RELEASE_CHECKS) as FunctionId[];

/** What Invoke returns for a call of `id`'s handler: a thrown error is a function error, as Lambda reports it. */
async function invoke(id: FunctionId, event: unknown, on: Service = service): Promise<InvokeAnswer> {
  const context = lambdaContext(id);
  try {
    if (id === 'authorizer') {
      const result = await on.authorizer(event as APIGatewayTokenAuthorizerEvent, context);
      return { payload: Buffer.from(JSON.stringify(result)) };
    }
    if (id === 'cancel-order') {
      const result = await service.cancelOrder(event as APIGatewayProxyEvent, context);
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
  await expect(hook(EVENT)).resolves.toBe('Succeeded');
  expect(reports).toEqual([[EVENT, 'Succeeded']]);
});

test.each(FUNCTION_IDS)('a version of %s that answers like another function fails the release', async (id) => {
  const other = FUNCTION_IDS.find((f) => f !== id) as FunctionId;
  const { hook, reports } = hookOf(id, (_arn, event) => invoke(other, event));
  await expect(hook(EVENT)).resolves.toBe('Failed');
  expect(reports).toEqual([[EVENT, 'Failed']]);
});

test('a version that cannot be invoked fails the release', async () => {
  const { hook, reports } = hookOf('cancel-order', async () => {
    throw new Error('ResourceNotFoundException');
  });
  await expect(hook(EVENT)).resolves.toBe('Failed');
  expect(reports).toEqual([[EVENT, 'Failed']]);
});

test('the hook invokes the version it was given, never the function or an alias', async () => {
  const invoked: string[] = [];
  const { hook } = hookOf('list-orders', (arn, event) => {
    invoked.push(arn);
    return invoke('list-orders', event);
  });
  await hook(EVENT);
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
  await expect(hook(EVENT)).resolves.toBe('Failed');
  expect(reports).toEqual([[EVENT, 'Failed']]);
});

test('the canary check sends the canary key and passes only on an Allow for that key', async () => {
  const sent: string[] = [];
  const { hook } = hookOf('authorizer', (_arn, event) => {
    sent.push((event as { authorizationToken: string }).authorizationToken);
    return invoke('authorizer', event);
  });
  await expect(hook(EVENT)).resolves.toBe('Succeeded');
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
  await expect(hook(EVENT)).resolves.toBe('Failed');
  expect(reports).toEqual([[EVENT, 'Failed']]);
});

test('the canary check names what to do when the secret holds no key', async () => {
  const check = RELEASE_CHECKS.authorizer.find((c) => c.name.includes('canary'));
  await expect(check?.prepare({ canaryKey: async () => 'placeholder' })).rejects.toThrow(CANARY_KEY_MISSING);
});
