// Scans before an uncompressed listing of a too-large store is refused (406), next to the same store in
// gzip. The embedded server never updates ItemCount: DescribeTable's is set to the refusal threshold.
import { lambdaContext } from '../../tools/local/proxy-event';
import { invokeStreamedToResponse } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { createDocumentClient, createDynamoClient } from '../../lib/aws/dynamo';
import { RateLimiter } from '../../lib/limits/limiter';
import { makeListOrdersHandler } from '../../lib/orders/handlers';
import { UNCOMPRESSED_LISTING_MAX_ORDERS } from '../../lib/orders/listing-size';
import { OrdersRepository } from '../../lib/orders/repository';
import { logCalls } from '../../test/support/limiter-clients';
import { proxyEvent, seededTables } from '../support/fixtures';
import type { Row, Suite } from '../support/suite';

export const listingRefusal: Suite = {
  name: 'listing refusal',
  async run({ endpoint, quick }) {
    installLocalLambdaRuntime();
    const tables = await seededTables(endpoint, quick ? 2_000 : 20_000);
    const client = createDynamoClient({ endpoint });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const table = (result.output as { Table?: { ItemCount?: number } }).Table;
        if (context.commandName === 'DescribeTableCommand' && table) table.ItemCount = UNCOMPRESSED_LISTING_MAX_ORDERS;
        return result;
      },
      { step: 'initialize', name: 'reportLargeStore' },
    );
    const doc = createDocumentClient(client);
    const log = logCalls(doc);
    const handler = makeListOrdersHandler({
      orders: new OrdersRepository(doc, tables.names.orders),
      limiter: new RateLimiter(tables.doc, tables.names.rateLimits),
      scan: { segments: 1, pageSize: 1_000 },
    });
    const list = async (acceptEncoding: string) => {
      const event = proxyEvent('GET', '/store/orders', tables.caller);
      event.headers = { ...event.headers, 'Accept-Encoding': acceptEncoding };
      log.take();
      const { statusCode } = await invokeStreamedToResponse(handler, event, lambdaContext('list-orders'));
      const calls = log.take().map((c) => c.operation);
      return { statusCode, calls, scans: calls.filter((op) => op === 'Scan').length };
    };
    const [refused, served] = [await list('identity'), await list('gzip')];
    client.destroy();
    await tables.drop();
    const rows: Row[] = [
      [
        'Scans before a 406',
        `identity, store at ${UNCOMPRESSED_LISTING_MAX_ORDERS.toLocaleString('en-US')} orders: ${refused.statusCode}`,
        `${refused.scans} (calls: ${refused.calls.join(', ') || 'none'})`,
        'must be 0',
      ],
      ['Scans of the same listing in gzip', `${served.statusCode}`, String(served.scans), 'the table read'],
    ];
    return { rows, figures: { refused, served: { statusCode: served.statusCode, scans: served.scans } } };
  },
};
