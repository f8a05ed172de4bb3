// `npm start -- --dynamodb-endpoint URL`: whether the server there is DynamoDB at all, asked once
// before any table is created, so pointing at the wrong port is one line saying so rather than
// whatever the other server's answer makes of a DynamoDB error ("No such resource.", a JSON parse
// error).

import { ListTablesCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { field, isUnreachable } from '../shared/errors';
import { StartUsageError } from './start-args';

/** The HTTP status behind an SDK error: from its metadata, or from the raw response when its body did not parse. */
function httpStatus(error: unknown): number | undefined {
  const status = field(field(error, '$metadata'), 'httpStatusCode') ?? field(field(error, '$response'), 'statusCode');
  return typeof status === 'number' ? status : undefined;
}

/**
 * DynamoDB (and DynamoDB Local, dynalite) refuses with 400, or fails with 500/503, and names the
 * error `...Exception` in its `__type`; any other status or shape is some other HTTP server.
 */
function isDynamoRefusal(error: unknown): boolean {
  const status = httpStatus(error);
  const name = field(error, 'name');
  return (status === 400 || status === 500 || status === 503) && typeof name === 'string' && /Exception$/.test(name);
}

/**
 * Asks the server at the endpoint for one table name. A DynamoDB refusal (bad credentials, say)
 * is passed on as it is; an unreachable server too (serve.ts words it); anything else is a
 * StartUsageError: the URL names a server that is not DynamoDB.
 */
export async function checkAnswersLikeDynamo(client: DynamoDBClient, endpoint: string): Promise<void> {
  const notDynamo = (what: string) =>
    new StartUsageError(
      `The server at ${endpoint} (--dynamodb-endpoint) does not answer like DynamoDB (${what}): ` +
        'give the address of DynamoDB Local or a dynalite',
    );
  let tableNames: unknown;
  try {
    ({ TableNames: tableNames } = await client.send(new ListTablesCommand({ Limit: 1 })));
  } catch (error) {
    if (isUnreachable(error) || isDynamoRefusal(error)) throw error;
    const status = httpStatus(error);
    throw notDynamo(
      status === undefined ? 'its answer to ListTables is not DynamoDB’s' : `HTTP ${status} to ListTables`,
    );
  }
  if (!Array.isArray(tableNames)) throw notDynamo('its answer to ListTables has no table list');
}
