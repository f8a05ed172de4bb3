// What a release's pre-traffic hook asks the new version of each function before CodeDeploy moves
// any call to it, and the answer each must get. The requests read or change no order and list
// nothing, so they cost the same against any store; each still runs the new code's whole path
// (its settings, its bundle, its table access where it has one).
import { callerContext } from '../../lib/core/access/caller';
import { generateApiKey, hashApiKey, isWellFormedApiKey, keyIdFromHash } from '../../lib/core/access/key-format';
import { ERRORS, UNAUTHORIZED_ANSWER, type ErrorCode } from '../../lib/contract/errors';
import { canaryKeyCommandLine, type FunctionId } from '../../lib/contract/deployment';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { basePathOf, routeByOperation, WEBHOOK_ENDPOINTS_PATH, type OperationId } from '../../lib/contract/routes';
import { RELEASE_CHECK_FLAG, UNAUTHORIZED_MESSAGE } from '../../lib/edge/authorizer';

/** What Lambda answered an Invoke: the payload, and the function error it reported if any. */
export interface InvokeAnswer {
  payload: Uint8Array;
  functionError?: string;
}

/** What a check may read before it asks: the stage's canary key (a real key, from its secret). */
export interface CheckInputs {
  canaryKey(): Promise<string>;
}

/** One request to the new version, and how its answer is judged. */
export interface PreparedCheck {
  event: unknown;
  /** Why the answer is wrong, or undefined when it is the one expected. */
  judge(answer: InvokeAnswer): string | undefined;
}

export interface ReleaseCheck {
  /** What is asked, as the hook reports it. */
  name: string;
  /** The request and its judge; throws when what it needs cannot be had (the hook then reports Failed). */
  prepare(inputs: CheckInputs): Promise<PreparedCheck>;
}

/** A check whose request needs no input. */
function fixed(name: string, event: unknown, judge: PreparedCheck['judge']): ReleaseCheck {
  return { name, prepare: async () => ({ event, judge }) };
}

/**
 * Why the stage's canary key cannot be used: its secret holds no API key yet (the stack creates it
 * with a placeholder; the admin command stores one, docs/operations.md#the-release-canary-key).
 */
export const CANARY_KEY_MISSING = `the stage's release canary key secret holds no API key: store one with ${canaryKeyCommandLine('<stage>')} (docs/operations.md#the-release-canary-key)`;

/** The key id the checks' synthetic caller carries; it names no key, so nothing it counts is anyone's. */
export const RELEASE_CHECK_KEY_ID = 'release-check';

/**
 * A streamed function's answer, as Invoke returns it: the HTTP prelude (JSON), eight NUL bytes,
 * then the body. A buffered one is the proxy result as JSON.
 */
export function httpAnswer(payload: Uint8Array): { statusCode: unknown; body: string } {
  const text = Buffer.from(payload).toString('utf8');
  const delimiter = text.indexOf('\0'.repeat(8));
  if (delimiter >= 0) {
    const prelude = JSON.parse(text.slice(0, delimiter)) as { statusCode?: unknown };
    return { statusCode: prelude.statusCode, body: text.slice(delimiter + 8) };
  }
  const result = JSON.parse(text) as { statusCode?: unknown; body?: unknown };
  return { statusCode: result.statusCode, body: typeof result.body === 'string' ? result.body : '' };
}

/** Judges an HTTP answer by its status and its Error code. */
function expectError(code: ErrorCode): PreparedCheck['judge'] {
  return (answer) => {
    if (answer.functionError) return `the function failed (${answer.functionError})`;
    let got: { statusCode: unknown; body: string };
    try {
      got = httpAnswer(answer.payload);
    } catch {
      return 'the answer is not an HTTP response';
    }
    const status = ERRORS[code].status;
    if (got.statusCode !== status) return `expected ${status} ${code}, got status ${String(got.statusCode)}`;
    if (!got.body.includes(`"${code}"`)) return `expected the ${code} Error body`;
    return undefined;
  };
}

function proxyEvent(operationId: OperationId, path: string, authorizer: Record<string, unknown> | null) {
  const route = routeByOperation(operationId);
  return {
    resource: route.path,
    path,
    httpMethod: route.method,
    headers: { 'Accept-Encoding': 'gzip' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId: `${RELEASE_CHECK_KEY_ID}-${operationId}`,
      path: `${basePathOf(route)}${path}`,
      authorizer,
    },
  };
}

const INVALID_ORDER_ID = 'not-an-order-id';

/**
 * An authorizer's TOKEN event for a key, on a method of a made-up stage, marked as the hook's: the
 * authorizer counts its decision in no metric (RELEASE_CHECK_FLAG).
 */
function tokenEvent(key: string) {
  return {
    type: 'TOKEN',
    authorizationToken: `Bearer ${key}`,
    methodArn: 'arn:aws:execute-api:us-east-1:123456789012:release/v1/GET/store/orders',
    [RELEASE_CHECK_FLAG]: true,
  };
}

/** The errorMessage of a function error's payload, if it has one. */
function errorMessageOf(answer: InvokeAnswer): unknown {
  try {
    return (JSON.parse(Buffer.from(answer.payload).toString('utf8')) as { errorMessage?: unknown }).errorMessage;
  } catch {
    return undefined;
  }
}

/** Judges an authorizer's answer: an Allow policy for the key `keyId` names. */
function allowedAs(keyId: string, answer: InvokeAnswer): string | undefined {
  if (answer.functionError) return `expected an Allow for ${keyId}, got the error ${String(errorMessageOf(answer))}`;
  let result: { principalId?: unknown; policyDocument?: { Statement?: { Effect?: unknown }[] } };
  try {
    result = JSON.parse(Buffer.from(answer.payload).toString('utf8')) as typeof result;
  } catch {
    return 'the answer is not an authorizer result';
  }
  const effects = (result.policyDocument?.Statement ?? []).map((statement) => statement.Effect);
  if (result.principalId !== keyId) return `expected the principal ${keyId}, got ${String(result.principalId)}`;
  if (effects.length === 0 || effects.some((effect) => effect !== 'Allow')) return 'expected an Allow policy';
  return undefined;
}

/** The checks of each function's new version. */
export const RELEASE_CHECKS: Record<FunctionId, readonly ReleaseCheck[]> = {
  authorizer: [
    fixed('an unknown, well-formed key is refused (one key lookup)', tokenEvent(generateApiKey()), (answer) => {
      const message = errorMessageOf(answer);
      return answer.functionError && message === UNAUTHORIZED_MESSAGE
        ? undefined
        : `expected the refusal "${UNAUTHORIZED_MESSAGE}", got ${answer.functionError ? `the error ${String(message)}` : 'an allow or deny policy'}`;
    }),
    {
      // A version that refused every key would pass the check above: this one needs a real key.
      name: "the stage's canary key is allowed, as itself (one key lookup)",
      prepare: async (inputs) => {
        const key = await inputs.canaryKey();
        if (!isWellFormedApiKey(key)) throw new Error(CANARY_KEY_MISSING);
        const keyId = keyIdFromHash(hashApiKey(key));
        return { event: tokenEvent(key), judge: (answer) => allowedAs(keyId, answer) };
      },
    },
  ],
  'list-orders': [
    fixed(
      `listOrders without an authorizer context is answered ${UNAUTHORIZED_ANSWER.code}, before any Scan`,
      proxyEvent('listOrders', '/store/orders', null),
      expectError(UNAUTHORIZED_ANSWER.code),
    ),
  ],
  'cancel-order': [
    fixed(
      'cancelOrder of a malformed order id is answered INVALID_ORDER_ID (after the limiter counts it)',
      {
        ...proxyEvent('cancelOrder', `/store/orders/${INVALID_ORDER_ID}`, {
          ...callerContext({ keyId: RELEASE_CHECK_KEY_ID, plan: 'free', limits: PLAN_LIMITS.free }),
          principalId: RELEASE_CHECK_KEY_ID,
        }),
        pathParameters: { orderId: INVALID_ORDER_ID },
      },
      expectError('INVALID_ORDER_ID'),
    ),
  ],
  'list-orders-v2': [
    fixed(
      `listOrdersV2 without an authorizer context is answered ${UNAUTHORIZED_ANSWER.code}, before any read`,
      proxyEvent('listOrdersV2', '/store/orders', null),
      expectError(UNAUTHORIZED_ANSWER.code),
    ),
  ],
  'webhook-endpoints': [
    fixed(
      'createWebhookEndpoint with a body that is not JSON is answered INVALID_WEBHOOK_ENDPOINT (after the limiter counts it), before any read',
      {
        ...proxyEvent('createWebhookEndpoint', WEBHOOK_ENDPOINTS_PATH, {
          ...callerContext({ keyId: RELEASE_CHECK_KEY_ID, plan: 'free', limits: PLAN_LIMITS.free }),
          principalId: RELEASE_CHECK_KEY_ID,
        }),
        body: 'not json',
      },
      expectError('INVALID_WEBHOOK_ENDPOINT'),
    ),
  ],
  'get-pet': [
    fixed(
      `getPetById without an authorizer context is answered ${UNAUTHORIZED_ANSWER.code}, before any read`,
      proxyEvent('getPetById', '/pets/1', null),
      expectError(UNAUTHORIZED_ANSWER.code),
    ),
  ],
};
