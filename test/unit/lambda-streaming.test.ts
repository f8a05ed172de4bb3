// The response prelude travels as the Lambda runtime frames it (JSON, then 8 NUL bytes, then the
// body) and is parsed back the way API Gateway reads it.

import { finished } from 'node:stream/promises';
import {
  framePrelude,
  installLocalLambdaRuntime,
  LocalResponseStream,
  PRELUDE_CONTENT_TYPE,
  type ResponsePrelude,
} from '../../tools/local/lambda-streaming';

const runtime = () =>
  (globalThis as unknown as { awslambda: { HttpResponseStream: { from<S>(stream: S, prelude: ResponsePrelude): S } } })
    .awslambda;

function collectingStream() {
  const seen = { heads: [] as ResponsePrelude[], body: [] as Buffer[], ended: false };
  const stream = new LocalResponseStream({
    head: (prelude) => seen.heads.push(prelude),
    write: async (chunk) => {
      seen.body.push(chunk);
    },
    end: () => {
      seen.ended = true;
    },
  });
  return { stream, seen };
}

const PRELUDE: ResponsePrelude = {
  statusCode: 429,
  headers: { 'Content-Type': 'application/json', 'Retry-After': '7' },
};

beforeAll(() => installLocalLambdaRuntime());

test('framing is the prelude as JSON followed by exactly 8 NUL bytes', () => {
  const framed = Buffer.concat(framePrelude(PRELUDE));
  const json = Buffer.from(JSON.stringify(PRELUDE));
  expect(framed.subarray(0, json.length).equals(json)).toBe(true);
  expect([...framed.subarray(json.length)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
});

test('a framed stream’s prelude and body are found wherever the writes split the bytes', async () => {
  const bytes = Buffer.concat([...framePrelude(PRELUDE), Buffer.from('{"code":"RATE_LIMITED"}')]);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const { stream, seen } = collectingStream();
    stream.setContentType(PRELUDE_CONTENT_TYPE);
    stream.write(bytes.subarray(0, cut));
    stream.end(bytes.subarray(cut));
    await finished(stream);
    expect(seen.heads).toEqual([PRELUDE]);
    expect(Buffer.concat(seen.body).toString()).toBe('{"code":"RATE_LIMITED"}');
  }
});

test('HttpResponseStream.from marks the stream and frames the prelude before the first write', async () => {
  const { stream, seen } = collectingStream();
  const framed = runtime().HttpResponseStream.from(stream, PRELUDE);
  framed.write('');
  framed.write('[1,');
  framed.end('2]');
  await finished(framed);
  expect(seen.heads).toEqual([PRELUDE]);
  expect(Buffer.concat(seen.body).toString()).toBe('[1,2]');
  expect(seen.ended).toBe(true);
});

test('a framed stream that ends without writing still sends its prelude', async () => {
  const { stream, seen } = collectingStream();
  runtime().HttpResponseStream.from(stream, { statusCode: 204 }).end();
  await finished(stream);
  expect(seen.heads).toEqual([{ statusCode: 204 }]);
  expect(seen.body).toEqual([]);
});

test('a stream never framed is all body under the default prelude', async () => {
  const { stream, seen } = collectingStream();
  stream.end('plain');
  await finished(stream);
  expect(seen.heads).toEqual([{}]);
  expect(Buffer.concat(seen.body).toString()).toBe('plain');
});

test('a prelude that is not JSON fails the stream instead of reaching the client', async () => {
  const { stream, seen } = collectingStream();
  stream.setContentType(PRELUDE_CONTENT_TYPE);
  const failure = new Promise<Error>((resolve) => stream.once('error', resolve));
  stream.write(Buffer.concat([Buffer.from('{"statusCode": 2'), Buffer.alloc(8), Buffer.from('body')]));
  expect((await failure).name).toBe('SyntaxError');
  expect(seen.heads).toEqual([]);
});
