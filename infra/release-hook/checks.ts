// What a release's pre-traffic hook asks the new version of each function before CodeDeploy moves
// any call to it, and the answer each must get. The requests read or change no order and list
// nothing, so they cost the same against any store; each still runs the new code's whole path
// (its settings, its bundle, its table access where it has one).
import { callerContext } from '../../lib/core/caller';
import { generateApiKey } from '../../lib/core/key-format';
import { ERRORS, UNAUTHORIZED_ANSWER, type ErrorCode } from '../../lib/contract/errors';
import type { FunctionId } from '../../lib/contract/deployment';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH, routeByOperation } from '../../lib/contract/routes';
import { UNAUTHORIZED_MESSAGE } from '../../lib/edge/authorizer';

/** What Lambda answered an Invoke: the payload, and the function error it reported if any. */
export interface InvokeAnswer {
  payload: Uint8Array;
  functionError?: string;
}

export interface ReleaseCheck {
  /** What is asked, as the hook reports it. */
  name: string;
  event: unknown;
  /** Why the answer is wrong, or undefined when it is the one expected. */
  judge(answer: InvokeAnswer): string | undefined;
}

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
function expectError(code: ErrorCode): ReleaseCheck['judge'] {
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

function proxyEvent(operationId: string, path: string, authorizer: Record<string, unknown> | null) {
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
    requestContext: { requestId: `${RELEASE_CHECK_KEY_ID}-${operationId}`, path: `${BASE_PATH}${path}`, authorizer },
  };
}

const INVALID_ORDER_ID = 'not-an-order-id';

/** The checks of each function's new version. */
export const RELEASE_CHECKS: Record<FunctionId, readonly ReleaseCheck[]> = {
  authorizer: [
    {
      name: 'an unknown, well-formed key is refused (one key lookup)',
      event: {
        type: 'TOKEN',
        authorizationToken: `Bearer ${generateApiKey()}`,
        methodArn: 'arn:aws:execute-api:us-east-1:123456789012:release/v1/GET/store/orders',
      },
      judge: (answer) => {
        const message = (() => {
          try {
            return (JSON.parse(Buffer.from(answer.payload).toString('utf8')) as { errorMessage?: unknown })
              .errorMessage;
          } catch {
            return undefined;
          }
        })();
        return answer.functionError && message === UNAUTHORIZED_MESSAGE
          ? undefined
          : `expected the refusal "${UNAUTHORIZED_MESSAGE}", got ${answer.functionError ? `the error ${String(message)}` : 'an allow or deny policy'}`;
      },
    },
  ],
  'list-orders': [
    {
      name: `listOrders without an authorizer context is answered ${UNAUTHORIZED_ANSWER.code}, before any Scan`,
      event: proxyEvent('listOrders', '/store/orders', null),
      judge: expectError(UNAUTHORIZED_ANSWER.code),
    },
  ],
  'cancel-order': [
    {
      name: 'cancelOrder of a malformed order id is answered INVALID_ORDER_ID (after the limiter counts it)',
      event: {
        ...proxyEvent('cancelOrder', `/store/orders/${INVALID_ORDER_ID}`, {
          ...callerContext({ keyId: RELEASE_CHECK_KEY_ID, plan: 'free', limits: PLAN_LIMITS.free }),
          principalId: RELEASE_CHECK_KEY_ID,
        }),
        pathParameters: { orderId: INVALID_ORDER_ID },
      },
      judge: expectError('INVALID_ORDER_ID'),
    },
  ],
  'list-orders-v2': [
    {
      name: `listOrdersV2 without an authorizer context is answered ${UNAUTHORIZED_ANSWER.code}, before any read`,
      event: proxyEvent('listOrdersV2', '/store/orders', null),
      judge: expectError(UNAUTHORIZED_ANSWER.code),
    },
  ],
  'get-pet': [
    {
      name: `getPetById without an authorizer context is answered ${UNAUTHORIZED_ANSWER.code}, before any read`,
      event: proxyEvent('getPetById', '/pets/1', null),
      judge: expectError(UNAUTHORIZED_ANSWER.code),
    },
  ],
};
