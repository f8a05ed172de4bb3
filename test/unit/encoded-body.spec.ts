// A buffered body's coding as API Gateway REST lets it reach the client (lib/edge/encoded-body.ts),
// and the local gateway's invocation doing with a base64 body what API Gateway does (tools/local/invoke.ts).
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ENCODED_BODY_MEDIA_TYPES } from '../../lib/contract/routes';
import { bufferedCoding, encodedBody, gatewayDecodesBinary } from '../../lib/edge/encoded-body';
import { invokeBuffered } from '../../tools/local/invoke';
import { lambdaContext } from '../../tools/local/proxy-event';

const event = (headers: Record<string, string>) => ({ headers, multiValueHeaders: {} });

test('API Gateway decodes for the first Accept media type its binary media types cover, and never without Accept', () => {
  expect(gatewayDecodesBinary(event({ Accept: 'application/json' }), ['*/*'])).toBe(true);
  expect(gatewayDecodesBinary(event({ accept: 'text/html, application/json;q=0.9' }), ['application/json'])).toBe(
    false,
  );
  expect(gatewayDecodesBinary(event({ Accept: 'application/json; charset=utf-8' }), ['application/*'])).toBe(true);
  expect(gatewayDecodesBinary(event({ Accept: 'application/json' }), [])).toBe(false);
  expect(gatewayDecodesBinary(event({}), ['*/*'])).toBe(false);
});

test('a page is compressed only when API Gateway would pass it on as bytes', () => {
  expect(bufferedCoding(event({ Accept: '*/*', 'Accept-Encoding': 'gzip, br' }))).toBe('br');
  expect(bufferedCoding(event({ 'Accept-Encoding': 'gzip, br' }))).toBe('identity');
  expect(bufferedCoding(event({ Accept: '*/*' }))).toBe('identity');
  const body = '{"orders":[]}';
  const encoded = encodedBody(event({ Accept: '*/*', 'Accept-Encoding': 'gzip' }), body, { Link: 'x' });
  expect(encoded.isBase64Encoded).toBe(true);
  expect(encoded.headers).toMatchObject({ Link: 'x', 'Content-Encoding': 'gzip' });
  expect(gunzipSync(Buffer.from(encoded.body, 'base64')).toString()).toBe(body);
});

describe('the local gateway with a base64 body', () => {
  const bytes = Buffer.from([0x1f, 0x8b, 0x00, 0xff]);
  const handler = () => Promise.resolve({ statusCode: 200, body: bytes.toString('base64'), isBase64Encoded: true });
  const invoke = (headers: Record<string, string>, types: readonly string[]) =>
    invokeBuffered(handler, event(headers) as unknown as APIGatewayProxyEvent, lambdaContext('list-orders-v2'), types);

  test('sends the bytes when the API has binary media types covering the Accept', async () => {
    expect((await invoke({ Accept: 'application/json' }, ENCODED_BODY_MEDIA_TYPES))?.body).toEqual(bytes);
  });

  test('sends the base64 text as it is otherwise, as API Gateway does', async () => {
    expect((await invoke({ Accept: 'application/json' }, []))?.body).toBe(bytes.toString('base64'));
    expect((await invoke({}, ENCODED_BODY_MEDIA_TYPES))?.body).toBe(bytes.toString('base64'));
  });
});
