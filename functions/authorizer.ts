import { ApiKeysRepository } from '../lib/keys/repository';
import { makeAuthorizerHandler } from '../lib/keys/authorizer-handler';
import { documentClientFromEnv } from '../lib/aws/dynamo';
import { requireEnv } from '../lib/aws/env';
import { TABLES } from '../lib/aws/tables';

const keys = new ApiKeysRepository(documentClientFromEnv(), requireEnv(TABLES.apiKeys.envVar));

export const handler = makeAuthorizerHandler({ keys });
