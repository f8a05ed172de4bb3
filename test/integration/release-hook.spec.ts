// The pre-traffic hook's checks against the real handlers, invoked as Lambda would and answering
// as Invoke returns them, on the embedded server: the answers a healthy version gives pass, and
// a version answering otherwise fails the release.

import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { composeService, type Service } from '../../lib/root/service';
import type { FunctionId } from '../../lib/contract/deployment';
import { makeReleaseHook, type HookDeps, type HookEvent } from '../../infra/release-hook/handler';
import { RELEASE_CHECKS, type InvokeAnswer } from '../../infra/release-hook/checks';
import { invokeStreamed } from '../../tools/local/invoke';
import { framePrelude, installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { lambdaContext } from '../../tools/local/proxy-event';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let service: Service;

beforeAll(async () => {
  installLocalLambdaRuntime();
  tables = await createTestTables();
  service = composeService({ endpoint: tables.endpoint, tables: tables.names });
});
afterAll(() => tables.drop());

const FUNCTION_IDS = Object.keys(RELEASE_CHECKS) as FunctionId[];

/** What Invoke returns for a call of `id`'s handler: a thrown error is a function error, as Lambda reports it. */
async function invoke(id: FunctionId, event: unknown): Promise<InvokeAnswer> {
  const context = lambdaContext(id);
  try {
    if (id === 'authorizer') {
      const result = await service.authorizer(event as APIGatewayTokenAuthorizerEvent, context);
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
function hookOf(functionId: FunctionId, runs: HookDeps['invoke']) {
  const reports: [HookEvent, string][] = [];
  const hook = makeReleaseHook({
    functionId,
    versionArn: `arn:aws:lambda:local:000000000000:function:${functionId}:7`,
    invoke: runs,
    report: async (event, status) => void reports.push([event, status]),
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
