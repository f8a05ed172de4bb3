// What a stage's deploy role needs for the stage's release canary key: the deploy preflight reads
// its secret (tools/deploy/preflight.ts, after the stack's outputs: DescribeStacks, granted for the
// deploy), and the pipeline's `canary-key create --if-missing` after each deploy reads it and
// stores a new key (tools/admin/commands/canary-key.ts). CloudFormation generates the secret's
// name, so the grant names it by its tags: the stage's tag (STAGE_TAG, which the stage's execution
// policy refuses to give another stage's value) and the canary key's (CANARY_KEY_SECRET_TAG, its
// value the stage): this stage's canary secret, not its cursor key, nor any secret of another
// stage. The Secret resource type of Secrets Manager takes aws:ResourceTag/${TagKey} for both
// actions (Service Authorization Reference,
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html).
// The key's record, the clock's probe and the revocation marks are the stage's tables, under the
// grants the smoke test has on them (smokeStatements: GetItem, PutItem, UpdateItem, Scan); the key
// gets no API Gateway key, so nothing of API Gateway. It is part of deployRolePolicies(stage), so
// the stage's permissions boundary allows it too, and only for that stage's canary secret.
import { Aws } from 'aws-cdk-lib/core';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { CANARY_KEY_SECRET_TAG, type StageName } from '../../lib/contract/deployment';
import { taggedFor } from './names';

/** Read and store the stage's canary key secret. */
export const CANARY_KEY_SECRET_ACTIONS = ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'];

export function canaryKeyStatements(stage: StageName): PolicyStatement[] {
  const tagged = taggedFor(stage);
  return [
    new PolicyStatement({
      actions: CANARY_KEY_SECRET_ACTIONS,
      resources: [`arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:*`],
      conditions: {
        StringEquals: { ...tagged.StringEquals, [`aws:ResourceTag/${CANARY_KEY_SECRET_TAG}`]: stage },
      },
    }),
  ];
}
