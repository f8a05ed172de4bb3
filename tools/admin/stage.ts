import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  paginateGetApiKeys,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { secretsManagerReader } from '../../lib/root/secrets';
import type { ApiKeyRecord } from '../../lib/stores/api-keys';
import type { PlanName } from '../../lib/contract/plans';
import {
  CANARY_KEY_SECRET_OUTPUT,
  stackNameFor,
  TABLE_NAME_OUTPUTS,
  USAGE_PLAN_ID_OUTPUTS,
  WEBHOOK_QUEUE_URL_OUTPUT,
  type StageName,
} from '../../lib/contract/deployment';
import { AdminFailure } from '../shared/errors';
import { tablesTarget, type AdminTarget, type CanaryKeySecret, type GatewayKeys, type TargetWiring } from './target';

/** The clients a deployed stage is reached through; tests pass mocked or local ones. */
export interface StageClients {
  cloudFormation: CloudFormationClient;
  apiGateway: APIGatewayClient;
  /**
   * Where the stage's DynamoDB is (AWS's, in a Region a command line may name; tests give an
   * endpoint): the composition root makes its clients, as it does the service's.
   */
  dynamo: Pick<TargetWiring, 'endpoint' | 'region'>;
  /** The release canary key's secret is reached through it; without it, `canary-key create` is not. */
  secretsManager?: SecretsManagerClient;
}

/**
 * The default AWS credentials and region chain (AWS_PROFILE, AWS_REGION, SSO, instance roles, ...);
 * a region given on the command line goes first.
 */
export function defaultStageClients(region?: string): StageClients {
  const where = region !== undefined ? { region } : {};
  return {
    cloudFormation: new CloudFormationClient(where),
    apiGateway: new APIGatewayClient(where),
    dynamo: where,
    secretsManager: new SecretsManagerClient(where),
  };
}

/** Frees the clients' sockets, so a command can exit. */
export function closeStageClients(clients: StageClients): void {
  clients.cloudFormation.destroy();
  clients.apiGateway.destroy();
  clients.secretsManager?.destroy();
}

/** The canary key's secret the stage's stack names, read and stored through Secrets Manager. */
function canaryKeySecret(client: SecretsManagerClient, arn: string): CanaryKeySecret {
  return {
    arn,
    read: () => secretsManagerReader(client)(arn),
    store: async (key) => void (await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: key }))),
  };
}

function isMissingStack(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationError' && /does not exist/.test(error.message);
}

/** Every output of a stage's stack by key; a missing stack is an AdminFailure saying what to do. */
export async function stackOutputs(
  cloudFormation: CloudFormationClient,
  stage: StageName,
): Promise<Map<string, string>> {
  const stackName = stackNameFor(stage);
  try {
    const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    return new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
  } catch (error) {
    if (!isMissingStack(error)) throw error;
    const region = await cloudFormation.config.region();
    throw new AdminFailure(
      `Stack ${stackName} does not exist in ${region}. Deploy it first (npx cdk deploy ${stackName}), ` +
        'or check AWS_REGION / AWS_PROFILE.',
    );
  }
}

/** The tables and usage plans of a stage, from its stack outputs (names in lib/contract/deployment.ts). */
function readStageOutputs(stage: StageName, outputs: Map<string, string>) {
  const stackName = stackNameFor(stage);
  const missing: string[] = [];
  const output = (key: string): string => {
    const value = outputs.get(key);
    if (!value) missing.push(key);
    return value ?? '';
  };
  const fromOutputs = <K extends string>(keys: Record<K, string>) =>
    Object.fromEntries(Object.entries(keys).map(([name, key]) => [name, output(key as string)])) as Record<K, string>;
  const tables = fromOutputs(TABLE_NAME_OUTPUTS);
  const usagePlanIds = fromOutputs(USAGE_PLAN_ID_OUTPUTS);
  // Checked before anything is written, so a key is never stored for a stage it cannot be set up in.
  if (missing.length > 0) {
    throw new AdminFailure(
      `Stack ${stackName} has no output ${missing.join(', ')}; deploy the current version of the stack.`,
    );
  }
  return { tables, usagePlanIds };
}

/** Deleted by hand, or by an earlier run: gone is what a removal is for. */
function ignoreNotFound(error: unknown): void {
  if (!(error instanceof Error && error.name === 'NotFoundException')) throw error;
}

/**
 * API Gateway keys for the stage's usage plans. The key's value is the SHA-256 hash of the bearer
 * key, which the authorizer returns as usageIdentifierKey; its name is the key id, so each gateway
 * key can be traced to its record.
 */
export function gatewayKeys(apiGateway: APIGatewayClient, usagePlanIds: Record<PlanName, string>): GatewayKeys {
  return {
    async register(record: ApiKeyRecord): Promise<string> {
      const { id } = await apiGateway.send(
        new CreateApiKeyCommand({
          name: record.id,
          value: record.hash,
          enabled: true,
          description: `Store Orders API ${record.plan} key`,
        }),
      );
      if (!id) throw new Error('API Gateway returned no id for the new API key');
      try {
        await apiGateway.send(
          new CreateUsagePlanKeyCommand({ usagePlanId: usagePlanIds[record.plan], keyId: id, keyType: 'API_KEY' }),
        );
      } catch (error) {
        // An API key in no usage plan is refused by the gateway anyway; removing it leaves no debris.
        await apiGateway.send(new DeleteApiKeyCommand({ apiKey: id })).catch(() => undefined);
        throw error;
      }
      return id;
    },
    async remove(gatewayKeyId: string, plan: PlanName): Promise<void> {
      // The binding first, then the key: each step is done or already gone, so a run stopped
      // halfway is finished by the next one. Deleted, not disabled: the account's API keys count
      // against a quota that cannot be raised (docs/admin.md).
      await apiGateway
        .send(new DeleteUsagePlanKeyCommand({ usagePlanId: usagePlanIds[plan], keyId: gatewayKeyId }))
        .catch(ignoreNotFound);
      await apiGateway.send(new DeleteApiKeyCommand({ apiKey: gatewayKeyId })).catch(ignoreNotFound);
    },
    async bind(gatewayKeyId: string, plan: PlanName): Promise<boolean> {
      const usagePlanId = usagePlanIds[plan];
      const inPlan = await apiGateway.send(new GetUsagePlanKeyCommand({ usagePlanId, keyId: gatewayKeyId })).then(
        () => true,
        (error: unknown) => {
          ignoreNotFound(error);
          return false;
        },
      );
      if (inPlan) return false;
      await apiGateway.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: gatewayKeyId, keyType: 'API_KEY' }));
      return true;
    },
    async named(name: string): Promise<string[]> {
      // nameQuery matches by prefix: only the exact name is the key's.
      const ids: string[] = [];
      for await (const page of paginateGetApiKeys({ client: apiGateway }, { nameQuery: name })) {
        for (const key of page.items ?? []) if (key.name === name && key.id) ids.push(key.id);
      }
      return ids;
    },
  };
}

/** A deployed stage's tables and API Gateway keys; a caller that has read the outputs passes them. */
export async function stageTarget(
  stage: StageName,
  clients: StageClients,
  outputsRead?: Map<string, string>,
): Promise<AdminTarget> {
  const close = () => closeStageClients(clients);
  try {
    const read = outputsRead ?? (await stackOutputs(clients.cloudFormation, stage));
    const outputs = readStageOutputs(stage, read);
    const region = await clients.cloudFormation.config.region();
    const canaryArn = read.get(CANARY_KEY_SECRET_OUTPUT);
    const queueUrl = read.get(WEBHOOK_QUEUE_URL_OUTPUT);
    return tablesTarget({
      ...(queueUrl ? { webhookQueue: { url: queueUrl } } : {}),
      wiring: { ...clients.dynamo, tables: outputs.tables },
      label: `stage ${stage} (stack ${stackNameFor(stage)} in ${region})`,
      unreachableHint: 'Check your network, AWS credentials and region.',
      gateway: gatewayKeys(clients.apiGateway, outputs.usagePlanIds),
      ...(canaryArn && clients.secretsManager
        ? { canaryKeySecret: canaryKeySecret(clients.secretsManager, canaryArn) }
        : {}),
      close,
    });
  } catch (error) {
    close();
    throw error;
  }
}
