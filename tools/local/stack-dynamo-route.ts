// The local stack tells a tool on the same machine where its DynamoDB is (the smoke command makes
// its keys there). Only to loopback callers: to anyone else the path answers as an unknown one.

import { BlockList, isIPv6 } from 'node:net';
import { gatewayResponse } from '../../lib/contract/gateway-responses';
import type { TableNames } from '../../lib/contract/tables';
import { STACK_DYNAMO_PATH, type StackDynamo } from '../shared/stack-dynamo';
import type { PublicRoute } from './gateway';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether a peer address is this machine's loopback (IPv4-mapped IPv6 included). */
export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && LOOPBACK.check(address, isIPv6(address) ? 'ipv6' : 'ipv4');
}

export function stackDynamoRoute(endpoint: string, tables: TableNames): PublicRoute {
  const published: StackDynamo = { endpoint, tables };
  return {
    method: 'GET',
    path: STACK_DYNAMO_PATH,
    respond: ({ remoteAddress }) =>
      isLoopback(remoteAddress)
        ? {
            statusCode: 200,
            headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
            body: JSON.stringify(published),
          }
        : gatewayResponse('MISSING_AUTHENTICATION_TOKEN'),
  };
}
