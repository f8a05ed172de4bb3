import { NagSuppressions } from 'cdk-nag';
import type { IConstruct } from 'constructs';

const reason = (text: string) => [{ id: 'AwsSolutions-IAM5', reason: text }];

/** The parts of the pipeline stack that carry findings (structural: the stack imports this file). */
export interface PipelineNagSubjects {
  stages: Partial<
    Record<string, { deployRole: IConstruct; executionPolicy: IConstruct; permissionsBoundary: IConstruct }>
  >;
  diffRole: IConstruct;
  lookupRole: IConstruct;
}

/** The pipeline stack's findings: wildcards that name one stage's resources, each explained. */
export function explainPipelineNagFindings(stack: PipelineNagSubjects): void {
  for (const pipeline of Object.values(stack.stages)) {
    if (!pipeline) continue;
    NagSuppressions.addResourceSuppressions(
      pipeline.deployRole,
      reason(
        "Wildcards only where the name is not known in advance: the stage's stack id and generated table and " +
          'function names (StoreOrders-<stage>-*), API Gateway key and usage-plan ids (the plans by their stage tag), ' +
          "the release canary key's secret (by its stage and canary tags), the asset objects and the KMS key S3 uses " +
          'for them; lambda:GetAccountSettings has no resource. The denies only narrow.',
      ),
    );
    NagSuppressions.addResourceSuppressions(
      pipeline.executionPolicy,
      reason(
        "The stage's CloudFormation execution role creates the stage's stack: each service is scoped to the names " +
          'the stage gives (StoreOrders-<stage>-*, store-orders-<stage>, its web ACL StoreOrders-<stage>-Firewall), ' +
          'and where ids are random (secrets, API Gateway and the API stages WAF protects, its execution logs) to ' +
          'the Region, with the stage tag refusing every other stage.',
      ),
    );
    NagSuppressions.addResourceSuppressions(
      pipeline.permissionsBoundary,
      reason(
        "A boundary grants nothing: it caps every role of one stage at that stage's names (StoreOrders-<stage>-*), " +
          "its tagged secrets and usage plans, its canary key's secret, and its deploy role's own work, with no IAM change at all.",
      ),
    );
  }
  NagSuppressions.addResourceSuppressions(
    stack.diffRole,
    reason(
      "lambda:GetAccountSettings (the preflight) supports no resource-level permission; the stages' functions are " +
        'named by CloudFormation (StoreOrders-<stage>-*), their stacks get ids; the deny only narrows.',
    ),
    true,
  );
  NagSuppressions.addResourceSuppressions(
    stack.lookupRole,
    reason('The stacks are named (StoreOrders-<stage>); the trailing * is the stack id CloudFormation assigns.'),
  );
}
