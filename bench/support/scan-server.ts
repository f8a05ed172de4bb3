// A DynamoDB endpoint for listings of a million orders: Scan and DescribeTable of one orders table
// are answered from variedOrders, page by page, in DynamoDB's wire format, each item as the store
// writes it (its fields and its v2 index keys, storedOrderItem: what a real Scan reads, about 350
// bytes of reply an order); every other call goes to the embedded server. Writing a million items into the embedded server takes about ten minutes
// even on a server of its own (bench/suites/sync.ts), and the handler's side of a Scan (HTTP, JSON,
// parsing the items) is what the bench measures.

import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { marshall } from '@aws-sdk/util-dynamodb';
import { storedOrderItem } from '../../lib/stores/orders';
import { variedOrders } from './fixtures';

/** DynamoDB's own default page is 1 MB; without a Limit this many orders is about that. */
const DEFAULT_PAGE = 5_000;

/** When the order at `index` last changed: a second apart, from the start of 2026. */
const updatedAt = (index: number) => new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString();

type Input = { TableName?: string; Limit?: number; Segment?: number; TotalSegments?: number } & {
  ExclusiveStartKey?: { cursor?: { S?: string } };
};

/** A Scan reply as the server sends it. */
interface ScanReply {
  Items: object[];
  Count: number;
  ScannedCount: number;
  LastEvaluatedKey?: Input['ExclusiveStartKey'];
}

/** The page of `count` orders a Scan asks for: its segment's share, from its cursor on. */
function scanPage(input: Input, count: number): ScanReply {
  const [segment, total] = [input.Segment ?? 0, input.TotalSegments ?? 1];
  const end = Math.floor((count * (segment + 1)) / total);
  const start = Number(input.ExclusiveStartKey?.cursor?.S ?? Math.floor((count * segment) / total));
  const stop = Math.min(end, start + (input.Limit ?? DEFAULT_PAGE));
  const items = variedOrders(stop - start, start).map((o, i) =>
    marshall(storedOrderItem(o, updatedAt(start + i)), { removeUndefinedValues: true }),
  );
  const next = stop < end ? { LastEvaluatedKey: { cursor: { S: String(stop) } } } : {};
  return { Items: items, Count: items.length, ScannedCount: items.length, ...next };
}

/**
 * The replies of a sequential Scan of `count` orders in pages of `pageSize`, up to `pages` of them,
 * as the server sends them: for the bench's transcoder rows, on the same pages the listing reads.
 */
export function scanReplies(count: number, pageSize: number, pages: number): Buffer[] {
  const replies: Buffer[] = [];
  for (let input: Input = { Limit: pageSize }; replies.length < pages;) {
    const page = scanPage(input, count);
    replies.push(Buffer.from(JSON.stringify(page)));
    if (!page.LastEvaluatedKey) break;
    input = { Limit: pageSize, ExclusiveStartKey: page.LastEvaluatedKey };
  }
  return replies;
}

export async function startScanServer(upstream: string, table: string, count: number) {
  const target = new URL(upstream);
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const input = (raw.length ? JSON.parse(raw.toString()) : {}) as Input;
    const action = req.headers['x-amz-target'];
    if (input.TableName === table && /\.(Scan|DescribeTable)$/.test(String(action))) {
      // DescribeTable: the item count is what sizes the handler's parallel segments.
      const answer = String(action).endsWith('.Scan')
        ? scanPage(input, count)
        : { Table: { TableName: table, ItemCount: count } };
      const payload = Buffer.from(JSON.stringify(answer));
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': payload.length });
      return res.end(payload);
    }
    const headers = { ...req.headers, host: target.host };
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      },
    );
    out.once('error', () => res.destroy()).end(raw);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
