// What a stage's deploy role needs for the stage's release canary key: the deploy preflight reads
// its secret (tools/deploy/preflight.ts), and the pipeline's `canary-key create --if-missing` after
// each deploy reads it and stores a new key (tools/admin/commands/canary-key.ts). CloudFormation
// generates the secret's name, so the grant names it by the tag the stage's stack puts on it
// (CANARY_KEY_SECRET_TAG, its value the stage): this stage's secret, no other. The Secret resource
// type of Secrets Manager takes aws:ResourceTag/${TagKey} for both actions (Service Authorization
// Reference, https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html).
// The key's record and its revocation marks are written with the grants the smoke test has on the
// stage's tables (smokeStatements: GetItem, PutItem, UpdateItem, Scan); the key gets no API
// Gateway key, so nothing of API Gateway.
import { Aws } from 'aws-cdk-lib/core';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { CANARY_KEY_SECRET_TAG, type StageName } from '../../lib/contract/deployment';

/** Read and store the stage's canary key secret. */
export const CANARY_KEY_SECRET_ACTIONS = ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'];

export function canaryKeyStatements(stage: StageName): PolicyStatement[] {
  return [
    new PolicyStatement({
      actions: CANARY_KEY_SECRET_ACTIONS,
      resources: [`arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:*`],
      conditions: { StringEquals: { [`aws:ResourceTag/${CANARY_KEY_SECRET_TAG}`]: stage } },
    }),
  ];
}
