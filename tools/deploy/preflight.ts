// What `npm run deploy` / `npm run diff` check before cdk starts (and bundles for 15-20 s): AWS
// credentials and a region, enough Lambda concurrency for the stages' reservations, and response
// streaming in the Region. Each failure is one line with its fix.
import { GetAccountSettingsCommand, InvokeWithResponseStreamCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { STAGE_NAMES, STREAMING_PROBE_FUNCTION } from '../../lib/contract/deployment';
import { errorMessage, field, isMissingRegion, missingCredentialsMessage } from '../shared/errors';

/** Lambda keeps this many of an account's concurrent executions unreserved, whatever is reserved. */
export const LAMBDA_UNRESERVED_MINIMUM = 100;

/** What preflight asks AWS; tests inject their own. */
export interface AccountFacts {
  region(): Promise<string>;
  /** The account's concurrent-execution quota in the Region (GetAccountSettings). */
  concurrencyLimit(): Promise<number>;
  /** Whether Lambda's InvokeWithResponseStream exists in the Region. */
  streamingAvailable(): Promise<boolean>;
}

export function lambdaAccountFacts(client: LambdaClient): AccountFacts {
  return {
    region: () => client.config.region(),
    async concurrencyLimit() {
      const { AccountLimit } = await client.send(new GetAccountSettingsCommand({}));
      return AccountLimit?.ConcurrentExecutions ?? 0;
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
  };
}

/** The stages' reserved concurrency, summed: both stages may share an account. */
export function requiredConcurrency(reservations: readonly number[]): number {
  return reservations.reduce((sum, n) => sum + n, 0) + LAMBDA_UNRESERVED_MINIMUM;
}

/** Undefined when everything holds, else the one line saying what to do. */
export async function preflight(facts: AccountFacts, reservations: readonly number[]): Promise<string | undefined> {
  try {
    const region = await facts.region();
    const limit = await facts.concurrencyLimit();
    const required = requiredConcurrency(reservations);
    if (limit < required) {
      return (
        `The account's Lambda concurrency in ${region} is ${limit}; the stages reserve ${reservations.join(' + ')} ` +
        `for list-orders (${STAGE_NAMES.join(', ')}) and Lambda keeps ${LAMBDA_UNRESERVED_MINIMUM} unreserved, so at least ` +
        `${required} is needed: request "Concurrent executions" of ${required} or more in Service Quotas (Lambda), ` +
        'or lower listOrdersReservedConcurrency in infra/stages.ts.'
      );
    }
    if (!(await facts.streamingAvailable())) {
      return (
        `Lambda response streaming is not available in ${region}, and list-orders streams: deploy to a Region ` +
        'that has it (set AWS_REGION; see "AWS Capabilities by Region" for Lambda InvokeWithResponseStream).'
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
    if (name === 'AccessDeniedException') {
      return `The AWS credentials may not read Lambda's account settings (${errorMessage(error)}): allow lambda:GetAccountSettings (the StoreOrders-pipeline roles have it).`;
    }
    return `Could not check the account before deploying: ${errorMessage(error)}`;
  }
}
