import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { StreamingLambdaHandler } from '../../lib/edge/api-handler';
import type { PlainResponse } from '../../lib/contract/gateway-responses';
import { inInvocation } from './invoke-store';
import { gatewayDecodesBinary } from '../../lib/edge/encoded-body';
import { LocalResponseStream, type ResponsePrelude } from './lambda-streaming';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

type HeaderValues = Record<string, string | number | boolean> | undefined;
type MultiHeaderValues = Record<string, (string | number | boolean)[]> | undefined;

/** Flattens proxy-result headers as API Gateway does, with its JSON default content type. */
export function responseHeaders(
  headers: HeaderValues,
  multi: MultiHeaderValues,
  hasBody: boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k] = String(v);
  for (const [k, v] of Object.entries(multi ?? {})) out[k] = v.map(String).join(', ');
  if (hasBody && !Object.keys(out).some((k) => k.toLowerCase() === 'content-type'))
    out['Content-Type'] = 'application/json';
  return out;
}

/** A buffered answer: bytes when API Gateway decoded a base64 body for the client. */
export type BufferedResponse = Omit<PlainResponse, 'body'> & { body: string | Buffer };

/**
 * A buffered proxy invocation; undefined when the handler returned something that is no response.
 * A base64 body (isBase64Encoded) reaches the client as bytes only when the request's first
 * Accept is covered by the API's binaryMediaTypes; otherwise API Gateway sends the base64 text
 * as it is (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings.html).
 */
export async function invokeBuffered(
  handler: ProxyHandler,
  event: APIGatewayProxyEvent,
  context: Context,
  binaryMediaTypes: readonly string[] = [],
): Promise<BufferedResponse | undefined> {
  const result = await inInvocation(context, () => handler(event, context));
  if (typeof result?.statusCode !== 'number') return undefined;
  const text = result.body ?? '';
  const decoded = result.isBase64Encoded === true && gatewayDecodesBinary(event, binaryMediaTypes);
  const body = decoded ? Buffer.from(text, 'base64') : text;
  return {
    statusCode: result.statusCode,
    headers: responseHeaders(result.headers, result.multiValueHeaders, body.length > 0),
    body,
  };
}

export interface StreamTarget {
  /** Called once, before the first body byte. */
  head(statusCode: number, headers: Record<string, string>): void;
  /** Resolves when the destination can take more. */
  write(chunk: Buffer): Promise<void>;
  end(): void;
}

/**
 * A streamed invocation: the head goes out when the handler releases it, body bytes as it writes them.
 * `headSent` tells whether a failure can still become an ordinary error response.
 */
export function invokeStreamed(
  handler: StreamingLambdaHandler,
  event: APIGatewayProxyEvent,
  context: Context,
  target: StreamTarget,
) {
  const stream = new LocalResponseStream({
    ...target,
    head: (prelude: ResponsePrelude) =>
      target.head(prelude.statusCode ?? 200, responseHeaders(prelude.headers, prelude.multiValueHeaders, true)),
  });
  return { stream, done: inInvocation(context, () => handler(event, stream, context)) };
}

/** Collects a streamed invocation into one response: for tests and the benchmark. */
export async function invokeStreamedToResponse(
  handler: StreamingLambdaHandler,
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<PlainResponse> {
  const head = { statusCode: 0, headers: {} };
  const chunks: Buffer[] = [];
  await invokeStreamed(handler, event, context, {
    head: (statusCode, headers) => Object.assign(head, { statusCode, headers }),
    write: async (chunk) => void chunks.push(chunk),
    end: () => undefined,
  }).done;
  return { ...head, body: Buffer.concat(chunks).toString('utf8') };
}
