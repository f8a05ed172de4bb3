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

/** A reply body's bytes: as the Node handler gives it (a stream of chunks), or whole. */
async function bodyBytes(body: unknown): Promise<Uint8Array | undefined> {
  if (body instanceof Uint8Array) return body;
  if (typeof body !== 'object' || body === null || !(Symbol.asyncIterator in body)) return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
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
        const bytes = await bodyBytes(response.body);
        if (bytes) {
          transcoded = transcodeScanReply(bytes);
          response.body = transcoded?.rest ?? bytes;
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
