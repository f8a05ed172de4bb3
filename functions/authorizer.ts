import { ApiKeysRepository } from '../lib/api-keys-repository';
import { makeAuthorizerHandler } from '../lib/authorizer-handler';
import { documentClientFromEnv } from '../lib/dynamo';
import { requireEnv } from '../lib/env';
import { TABLES } from '../lib/tables';

const keys = new ApiKeysRepository(documentClientFromEnv(), requireEnv(TABLES.apiKeys.envVar));

export const handler = makeAuthorizerHandler({ keys });
