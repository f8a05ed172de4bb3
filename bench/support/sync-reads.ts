// The two reads bench/suites/sync.ts compares, over HTTP on the local stack: a v1 listing (gzip)
// and a v2 sync walked to its last page, each with DynamoDB items read, wire bytes, time and requests.

import { request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BASE_PATH, V2_BASE_PATH } from '../../lib/contract/routes';
import { SYNC_PAGE } from '../../lib/contract/sync';

export interface ReadFigures {
  itemsRead: number;
  bytes: number;
  ms: number;
  requests: number;
  /** Orders in the answer, checked against what the store holds. */
  orders: number;
}

/** Items read by every Scan and Query the client sends (their ScannedCount): `take()` answers those since the last take. */
export function countItemsRead(client: DynamoDBDocumentClient): { take(): number } {
  let itemsRead = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const scanned = (result.output as { ScannedCount?: number }).ScannedCount;
      if (typeof scanned === 'number') itemsRead += scanned;
      return result;
    },
    { step: 'initialize', name: 'countItemsRead' },
  );
  return {
    take() {
      const taken = itemsRead;
      itemsRead = 0;
      return taken;
    },
  };
}

/** One GET's status, headers and raw body bytes (compressed as sent), and how long it took. */
function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** The whole store as v1 lists it, gzip as the typed client asks for it. */
export async function listingFigures(base: string, key: string, itemsRead: { take(): number }): Promise<ReadFigures> {
  itemsRead.take();
  const listed = await get(`${base}${BASE_PATH}/store/orders`, {
    Authorization: `Bearer ${key}`,
    'Accept-Encoding': 'gzip',
  });
  if (listed.status !== 200)
    throw new Error(`listing answered ${listed.status}: ${listed.body.toString().slice(0, 200)}`);
  const orders = (gunzipSync(listed.body).toString().match(/"id":/g) ?? []).length;
  return { itemsRead: itemsRead.take(), bytes: listed.body.length, ms: listed.ms, requests: 1, orders };
}

const DECODE = { gzip: gunzipSync, br: brotliDecompressSync } as const;

/**
 * Every order changed at or after `since`, in v2 pages of the largest size, following nextCursor to
 * the end; uncompressed, or in `coding` (asked for with an Accept header, without which API Gateway
 * would not pass a compressed page on as bytes), the bytes counted as sent.
 */
export async function syncFigures(
  base: string,
  key: string,
  since: string,
  itemsRead: { take(): number },
  coding?: keyof typeof DECODE,
): Promise<ReadFigures> {
  itemsRead.take();
  const figures = { itemsRead: 0, bytes: 0, ms: 0, requests: 0, orders: 0 };
  const page = (query: string) => `${base}${V2_BASE_PATH}/store/orders?${query}&limit=${SYNC_PAGE.maxLimit}`;
  let target: string | undefined = page(`updatedSince=${encodeURIComponent(since)}`);
  while (target !== undefined) {
    const asked: Record<string, string> = coding ? { Accept: 'application/json', 'Accept-Encoding': coding } : {};
    const answer = await get(target, { Authorization: `Bearer ${key}`, ...asked });
    if (answer.status !== 200) throw new Error(`sync page answered ${answer.status}`);
    const sent = answer.headers['content-encoding'];
    if (sent !== coding) throw new Error(`sync page came in ${sent ?? 'identity'}, asked for ${coding ?? 'identity'}`);
    const text = (coding ? DECODE[coding](answer.body) : answer.body).toString();
    const body = JSON.parse(text) as { orders: unknown[]; nextCursor?: string };
    figures.bytes += answer.body.length;
    figures.ms += answer.ms;
    figures.requests++;
    figures.orders += body.orders.length;
    target = body.nextCursor === undefined ? undefined : page(`cursor=${encodeURIComponent(body.nextCursor)}`);
  }
  return { ...figures, itemsRead: itemsRead.take() };
}
