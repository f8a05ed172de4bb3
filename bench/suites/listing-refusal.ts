// DynamoDB calls before an uncompressed listing of a too-large store is refused (406), next to the same
// store in gzip. The embedded server never updates ItemCount: DescribeTable's is set to the threshold.
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { composeService } from '../../lib/root/service';
import { UNCOMPRESSED_LISTING_MAX_ORDERS } from '../../lib/core/orders/listing-size';
import { OrdersRepository } from '../../lib/stores/orders';
import { invokeStreamedToResponse } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { lambdaContext } from '../../tools/local/proxy-event';
import type { Suite } from '../suite';
import { proxyEvent, seededTables } from '../support/fixtures';

type Listing = { statusCode: number; calls: string[] };
export type ListingRefusalFigures = { storeOrders: number; refused: Listing; served: Listing };

export const listingRefusal: Suite<ListingRefusalFigures> = {
  name: 'listing refusal',
  async run({ endpoint, quick }) {
    installLocalLambdaRuntime();
    const tables = await seededTables(endpoint, quick ? 2_000 : 20_000);
    const client = createDynamoClient({ endpoint });
    let calls: string[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        calls.push((context.commandName ?? '').replace(/Command$/, ''));
        const result = await next(args);
        const table = (result.output as { Table?: object }).Table;
        Object.assign(table ?? {}, { ItemCount: UNCOMPRESSED_LISTING_MAX_ORDERS });
        return result;
      },
      { step: 'initialize', name: 'reportLargeStore' },
    );
    const handler = composeService({
      endpoint,
      tables: tables.names,
      standIns: { orders: new OrdersRepository(createDocumentClient(client), tables.names.orders) },
    }).listOrders;
    const list = async (acceptEncoding: string): Promise<Listing> => {
      const event = proxyEvent(tables.caller);
      event.headers = { ...event.headers, 'Accept-Encoding': acceptEncoding };
      calls = [];
      const { statusCode } = await invokeStreamedToResponse(handler, event, lambdaContext('list-orders'));
      return { statusCode, calls };
    };
    const [refused, served] = [await list('identity'), await list('gzip')];
    await Promise.all([client.destroy(), tables.drop()]);
    return { storeOrders: UNCOMPRESSED_LISTING_MAX_ORDERS, refused, served };
  },
};
