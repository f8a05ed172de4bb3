// A DynamoDB endpoint for listings of millions of orders: Scan (and DescribeTable's item count) of
// one orders table are answered from generated orders, page by page, in DynamoDB's wire format;
// every other call goes to the embedded server. Writing a million items into the embedded server
// takes most of an hour on a shared machine, while the handler's side of a Scan (HTTP, JSON,
// unmarshalling) is what the bench measures, and that is unchanged.

import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Order } from '../../lib/orders/order';

const SCAN = 'DynamoDB_20120810.Scan';
const DESCRIBE_TABLE = 'DynamoDB_20120810.DescribeTable';
/** DynamoDB's own default page is 1 MB; without a Limit this many orders is about that. */
const DEFAULT_PAGE = 5_000;

function item(order: Order): Record<string, unknown> {
  const out: Record<string, unknown> = { id: { N: order.id }, status: { S: order.status } };
  if (order.petId !== undefined) out.petId = { N: order.petId };
  if (order.quantity !== undefined) out.quantity = { N: String(order.quantity) };
  if (order.shipDate !== undefined) out.shipDate = { S: order.shipDate };
  if (order.complete !== undefined) out.complete = { BOOL: order.complete };
  return out;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .once('end', () => resolve(Buffer.concat(chunks)))
      .once('error', reject);
  });
}

interface ScanInput {
  TableName?: string;
  Limit?: number;
  Segment?: number;
  TotalSegments?: number;
  ExclusiveStartKey?: { cursor?: { S?: string } };
}

export async function startScanServer(options: {
  upstream: string;
  table: string;
  count: number;
  orders: (count: number, firstIndex: number) => Order[];
}): Promise<{ endpoint: string; close(): Promise<void> }> {
  const upstream = new URL(options.upstream);

  function forward(
    req: IncomingMessage,
    raw: Buffer,
    res: ServerResponse,
    patch?: (json: Record<string, unknown>) => void,
  ): void {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        if (!patch) {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
          return;
        }
        void body(answer).then((text) => {
          const json = JSON.parse(text.toString()) as Record<string, unknown>;
          if ((answer.statusCode ?? 500) < 300) patch(json);
          const payload = Buffer.from(JSON.stringify(json));
          const { 'content-length': _length, 'x-amz-crc32': _crc, ...headers } = answer.headers;
          res.writeHead(answer.statusCode ?? 500, { ...headers, 'content-length': payload.length });
          res.end(payload);
        });
      },
    );
    out.once('error', () => res.destroy());
    out.end(raw);
  }

  function scan(input: ScanInput, res: ServerResponse): void {
    const total = input.TotalSegments ?? 1;
    const segment = input.Segment ?? 0;
    const end = Math.floor((options.count * (segment + 1)) / total);
    const start = Number(input.ExclusiveStartKey?.cursor?.S ?? Math.floor((options.count * segment) / total));
    const stop = Math.min(end, start + (input.Limit ?? DEFAULT_PAGE));
    const items = options.orders(stop - start, start).map(item);
    const page: Record<string, unknown> = { Items: items, Count: items.length, ScannedCount: items.length };
    if (stop < end) page.LastEvaluatedKey = { cursor: { S: String(stop) } };
    const payload = Buffer.from(JSON.stringify(page));
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': payload.length });
    res.end(payload);
  }

  const server = createServer((req, res) => {
    void body(req).then((raw) => {
      const target = req.headers['x-amz-target'];
      const input = raw.length ? (JSON.parse(raw.toString()) as ScanInput) : {};
      if (input.TableName !== options.table) return forward(req, raw, res);
      if (target === SCAN) return scan(input, res);
      if (target === DESCRIBE_TABLE) {
        return forward(req, raw, res, (json) => {
          (json.Table as Record<string, unknown>).ItemCount = options.count;
        });
      }
      return forward(req, raw, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
