// What `npm run deploy` / `npm run diff` check before cdk starts (and bundles for 15-20 s): AWS
// credentials and a region, enough unreserved Lambda concurrency for the stage's reservation,
// response streaming in the Region, and (deploy only) the stage's release canary key once its
// stack exists. Each failure is one line with its fix.
import {
  CloudFormationClient,
  DescribeStacksCommand,
  paginateListStackResources,
} from '@aws-sdk/client-cloudformation';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  InvokeWithResponseStreamCommand,
  LambdaClient,
} from '@aws-sdk/client-lambda';
import {
  CANARY_KEY_SECRET_OUTPUT,
  canaryKeyCommandLine,
  stackNameFor,
  STREAMING_PROBE_FUNCTION,
  type StageName,
} from '../../lib/contract/deployment';
import { isWellFormedApiKey } from '../../lib/core/access/key-format';
import { errorMessage, field, isMissingRegion, missingCredentialsMessage } from '../shared/errors';

/**
 * Lambda refuses a reservation that would leave fewer than this many of an account's concurrent
 * executions unreserved (https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html).
 */
export const LAMBDA_UNRESERVED_MINIMUM = 100;

/** What preflight asks AWS; tests inject their own. */
export interface AccountFacts {
  region(): Promise<string>;
  /**
   * The account's concurrency in the Region that no function reserves
   * (GetAccountSettings' AccountLimit.UnreservedConcurrentExecutions): what a new reservation is
   * taken from. The quota itself (ConcurrentExecutions) counts what other functions hold already.
   */
  unreservedConcurrency(): Promise<number>;
  /** What the stage's deployed functions reserve now (0 before its first deploy): the deploy gives it back. */
  reservedByStage(stage: StageName): Promise<number>;
  /** Whether Lambda's InvokeWithResponseStream exists in the Region. */
  streamingAvailable(): Promise<boolean>;
  /**
   * The stage's release canary key: its stack does not exist yet, or names no canary secret (a
   * stack deployed before release hooks), or its secret holds an API key or not.
   */
  canaryKey(stage: StageName): Promise<'no stack' | 'no secret' | 'stored' | 'missing'>;
}

/** CloudFormation's answer for a stack that does not exist (a stage before its first deploy). */
function isMissingStack(error: unknown): boolean {
  return field(error, 'name') === 'ValidationError' && /does not exist/.test(errorMessage(error));
}

export function lambdaAccountFacts(
  client: LambdaClient,
  cloudFormation: CloudFormationClient,
  secretsManager = new SecretsManagerClient({}),
): AccountFacts {
  return {
    region: () => client.config.region(),
    async unreservedConcurrency() {
      const { AccountLimit } = await client.send(new GetAccountSettingsCommand({}));
      return AccountLimit?.UnreservedConcurrentExecutions ?? 0;
    },
    async reservedByStage(stage) {
      const functions: string[] = [];
      try {
        for await (const page of paginateListStackResources(
          { client: cloudFormation },
          { StackName: stackNameFor(stage) },
        )) {
          for (const resource of page.StackResourceSummaries ?? []) {
            if (resource.ResourceType === 'AWS::Lambda::Function' && resource.PhysicalResourceId) {
              functions.push(resource.PhysicalResourceId);
            }
          }
        }
      } catch (error) {
        if (isMissingStack(error)) return 0;
        throw error;
      }
      let reserved = 0;
      for (const name of functions) {
        const answer = await client.send(new GetFunctionConcurrencyCommand({ FunctionName: name }));
        reserved += answer.ReservedConcurrentExecutions ?? 0;
      }
      return reserved;
    },
    async streamingAvailable() {
      try {
        await client.send(new InvokeWithResponseStreamCommand({ FunctionName: STREAMING_PROBE_FUNCTION }));
        return true;
      } catch (error) {
        // The API exists and looked for the function: streaming is there. A Region without the
        // API answers that the operation is unknown; anything else (credentials, network) is rethrown.
        if (field(error, 'name') === 'ResourceNotFoundException') return true;
        if (
          /UnknownOperation|not supported|InvalidAction/i.test(`${String(field(error, 'name'))} ${errorMessage(error)}`)
        )
          return false;
        throw error;
      }
    },
    async canaryKey(stage) {
      let arn: string | undefined;
      try {
        const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackNameFor(stage) }));
        arn = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === CANARY_KEY_SECRET_OUTPUT)?.OutputValue;
      } catch (error) {
        if (isMissingStack(error)) return 'no stack';
        throw error;
      }
      if (!arn) return 'no secret';
      const { SecretString = '' } = await secretsManager.send(new GetSecretValueCommand({ SecretId: arn }));
      return isWellFormedApiKey(SecretString.trim()) ? 'stored' : 'missing';
    },
  };
}

/**
 * The unreserved concurrency the deploy needs: the stage's new reservation plus what Lambda keeps
 * unreserved, less what the stage reserves now (a redeploy gives it back before it takes it again).
 */
export function requiredUnreserved(reservation: number, reservedNow: number): number {
  return reservation + LAMBDA_UNRESERVED_MINIMUM - reservedNow;
}

/**
 * Undefined when everything holds, else the one line saying what to do. With `canaryKey` (a
 * deploy), a stage whose stack exists must hold its release canary key: the deploy's authorizer
 * release would fail its pre-traffic check without it. A first deploy needs none: it creates each
 * function's alias at its first version, with no traffic to shift, so CodeDeploy runs no hook; nor
 * does a stack from before release hooks, whose aliases (and the secret) this deploy creates.
 */
export async function preflight(
  facts: AccountFacts,
  stage: StageName,
  reservation: number,
  { canaryKey = false } = {},
): Promise<string | undefined> {
  try {
    const region = await facts.region();
    const unreserved = await facts.unreservedConcurrency();
    const reservedNow = await facts.reservedByStage(stage);
    const required = requiredUnreserved(reservation, reservedNow);
    if (unreserved < required) {
      return (
        `The account's unreserved Lambda concurrency in ${region} is ${unreserved}; ${stage} reserves ${reservation} ` +
        `for list-orders (${reservedNow} held by ${stackNameFor(stage)} already) and Lambda keeps ${LAMBDA_UNRESERVED_MINIMUM} unreserved, ` +
        `so at least ${required} unreserved is needed: ` +
        'raise "Concurrent executions" in Service Quotas (Lambda), free concurrency other functions reserve, ' +
        'or lower listOrdersReservedConcurrency in infra/stages.ts.'
      );
    }
    if (!(await facts.streamingAvailable())) {
      return (
        `Lambda response streaming is not available in ${region}, and list-orders streams: deploy to a Region ` +
        'that has it (set AWS_REGION; see "AWS Capabilities by Region" for Lambda InvokeWithResponseStream).'
      );
    }
    if (canaryKey && (await facts.canaryKey(stage)) === 'missing') {
      return (
        `${stackNameFor(stage)} exists, and its release canary key secret holds no API key, so the authorizer's ` +
        `release would fail its pre-traffic check: run ${canaryKeyCommandLine(stage)}, then deploy again.`
      );
    }
    return undefined;
  } catch (error) {
    if (isMissingRegion(error)) return 'No AWS region is set: set AWS_REGION (or a region in your AWS profile).';
    const credentials = missingCredentialsMessage(error);
    if (credentials) return `${credentials} In the pipeline, the job's configure-aws-credentials step gives them.`;
    const name = String(field(error, 'name'));
    if (/ExpiredToken|UnrecognizedClient|InvalidClientTokenId|InvalidSignature/.test(name)) {
      return `The AWS credentials were refused (${name}): refresh them (aws sso login, or a new session) and run again.`;
    }
    if (name === 'AccessDeniedException' || name === 'AccessDenied') {
      return `The AWS credentials may not read what the preflight checks (${errorMessage(error)}): allow lambda:GetAccountSettings, cloudformation:ListStackResources and lambda:GetFunctionConcurrency, and to deploy, cloudformation:DescribeStacks and secretsmanager:GetSecretValue of the stage's canary key secret (the StoreOrders-pipeline roles have them).`;
    }
    return `Could not check the account before deploying: ${errorMessage(error)}`;
  }
}
