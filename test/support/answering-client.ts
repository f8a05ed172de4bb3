import { Readable } from 'node:stream';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HttpResponse, type HttpRequest } from '@smithy/core/protocols';
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';

/**
 * The service's document client as composed for a function, every reply coming from `reply()` with
 * status 200, in chunks of `chunk` bytes as Node's HTTP handler brings a body: the SDK's whole path
 * (serialising, signing, retries, its deserializer and our middleware) but the socket. For tests
 * that give the listing reply bytes no server writes, and for the bench's transcoder rows.
 */
export function answeringClient(
  reply: (request: HttpRequest) => Buffer,
  chunk = 64 * 1024,
  /** The Content-Length the reply claims; its own length by default. */
  contentLength: (bytes: Buffer) => string | undefined = (bytes) => String(bytes.length),
): DynamoDBDocumentClient {
  const client = createDynamoClient({ region: 'us-east-1', maxAttempts: 1 });
  client.config.credentials = async () => ({ accessKeyId: 'test', secretAccessKey: 'test' });
  client.config.requestHandler = {
    async handle(request: HttpRequest) {
      const bytes = reply(request);
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += chunk) chunks.push(bytes.subarray(at, at + chunk));
      const length = contentLength(bytes);
      const headers = {
        'content-type': 'application/x-amz-json-1.0',
        ...(length === undefined ? {} : { 'content-length': length }),
      };
      return { response: new HttpResponse({ statusCode: 200, headers, body: Readable.from(chunks) }) };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  return createDocumentClient(client);
}
