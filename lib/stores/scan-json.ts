// A Scan of the orders table whose items come back as the listing's JSON: the SDK still signs,
// sends, retries and reads errors and the reply's other members, but the reply's bytes go to the
// transcoder (lib/stores/scan-transcoder.ts) before its deserializer sees them, through the SDK's
// own extension point: a middleware in the deserialize step, which "is able to access the raw
// response" (the AWS SDK for JavaScript v3's middleware stack:
// https://aws.amazon.com/blogs/developer/middleware-stack-modular-aws-sdk-js/). It sits below the
// SDK's deserializer (priority low in that step: inside it, nearer the wire), so the deserializer
// reads what it leaves: the reply without its Items, or the whole reply when the transcoder declines.
import { ScanCommand, type AttributeValue, type ScanCommandInput } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HttpResponse } from '@smithy/core/protocols';
import type { OrdersJsonPage } from '../core/orders/orders-json';
import { transcodeScanReply, type TranscodedReply } from './scan-transcoder';

/** Its name in a Scan command's middleware stack. */
export const SCAN_JSON_MIDDLEWARE = 'ordersScanJson';

export interface ScanJsonReply {
  /** The page as the transcoder wrote it; absent when it declined the reply. */
  page: OrdersJsonPage | undefined;
  /** The items as the SDK parsed them, when the transcoder declined the reply. */
  items: Record<string, AttributeValue>[] | undefined;
  lastKey: Record<string, AttributeValue> | undefined;
}

/**
 * Reply buffers kept for the next replies. A listing reads a reply of a few hundred KB a page, and
 * allocating each anew (outside V8's heap) made V8 run a full mark-compact every twenty-odd pages
 * to account for them. A reply takes a buffer before it is read and gives it back once transcoded,
 * so no more are kept than replies were ever read at once (a listing's Scan segments).
 */
const spare: Buffer[] = [];
/** Below this a reply's buffer comes from Node's own pool, and is not kept. */
const SPARE_MIN_BYTES = 64 * 1024;

interface Body {
  bytes: Uint8Array;
  /** The spare-able buffer the bytes were read into, when they were. */
  buffer?: Buffer;
}

/**
 * A reply body's bytes: as the Node handler gives it (a stream of chunks), or whole. With the
 * reply's Content-Length each chunk is copied into place as it comes, into a spare buffer when one
 * is large enough, so a page is held once, not as its chunks and their concatenation both.
 */
async function readBody(body: unknown, contentLength: string | undefined): Promise<Body | undefined> {
  if (body instanceof Uint8Array) return { bytes: body };
  if (typeof body !== 'object' || body === null || !(Symbol.asyncIterator in body)) return undefined;
  const length = Number(contentLength);
  let buffer: Buffer | undefined;
  if (Number.isSafeInteger(length) && length >= SPARE_MIN_BYTES) {
    const kept = spare.pop();
    buffer = kept && kept.length >= length ? kept : Buffer.allocUnsafe(length);
  }
  const chunks: Uint8Array[] = [];
  let filled = 0;
  for await (const read of body as AsyncIterable<Uint8Array | string>) {
    const chunk = typeof read === 'string' ? Buffer.from(read) : read;
    if (buffer && chunks.length === 0 && filled + chunk.length <= length) {
      buffer.set(chunk, filled);
      filled += chunk.length;
    } else chunks.push(chunk);
  }
  if (buffer && filled === length && chunks.length === 0) return { bytes: buffer.subarray(0, length), buffer };
  // No length, a short one, or not the length said: the bytes as they came.
  return { bytes: Buffer.concat([...(buffer ? [buffer.subarray(0, filled)] : []), ...chunks]) };
}

/** A reply's buffer back for the next reply: only once nothing refers to its bytes any more. */
function spareBuffer(buffer: Buffer | undefined): void {
  if (buffer) spare.push(buffer);
}

/**
 * One Scan page of orders as the listing's JSON. A reply the transcoder declines (or one whose body
 * is not bytes) is parsed by the SDK as before, its items left for the reference path to write; an
 * error reply never reaches the transcoder, so the SDK's errors and retries are unchanged.
 */
export async function scanOrdersJson(client: DynamoDBDocumentClient, input: ScanCommandInput): Promise<ScanJsonReply> {
  const command = new ScanCommand(input);
  let transcoded: TranscodedReply | undefined;
  command.middlewareStack.add(
    (next) => async (args) => {
      // Each attempt starts afresh: only the attempt whose reply is deserialized counts.
      transcoded = undefined;
      const result = await next(args);
      const { response } = result;
      if (HttpResponse.isInstance(response) && response.statusCode >= 200 && response.statusCode < 300) {
        const body = await readBody(response.body, response.headers['content-length']);
        if (body) {
          transcoded = transcodeScanReply(body.bytes);
          // The transcoder keeps nothing of the reply (its JSON and the rest are copies); a reply it
          // declined goes to the SDK's deserializer, and its buffer with it.
          if (transcoded) spareBuffer(body.buffer);
          response.body = transcoded?.rest ?? body.bytes;
        }
      }
      return result;
    },
    { step: 'deserialize', priority: 'low', name: SCAN_JSON_MIDDLEWARE },
  );
  const output = await client.send(command);
  const page = transcoded && { orders: transcoded.orders, json: transcoded.json };
  return { page, items: page ? undefined : (output.Items ?? []), lastKey: output.LastEvaluatedKey };
}
