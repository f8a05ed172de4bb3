// The floor the function bundles are compared against: the same DynamoDB document client and
// middy core that every function needs, created at module load as the functions do, and nothing else.

import middy from '@middy/core';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = middy().handler(async () => ({ statusCode: 204, body: doc ? '' : 'unreachable' }));
