import { NagSuppressions } from 'cdk-nag';
import type { IConstruct } from 'constructs';

const reason = (text: string) => [{ id: 'AwsSolutions-IAM5', reason: text }];

/** The parts of the pipeline stack that carry findings (structural: the stack imports this file). */
export interface PipelineNagSubjects {
  deployRoles: Record<string, IConstruct>;
  diffRole: IConstruct;
  lookupRole: IConstruct;
  executionPolicy: IConstruct;
  permissionsBoundary: IConstruct;
}

/** The pipeline stack's findings: wildcards that name this project's resources, each explained. */
export function explainPipelineNagFindings(stack: PipelineNagSubjects): void {
  for (const role of Object.values(stack.deployRoles)) {
    NagSuppressions.addResourceSuppressions(
      role,
      reason(
        "Wildcards only where the name is not known in advance: the stage's stack ids and generated table names " +
          '(StoreOrders-<stage>-*), API Gateway key and usage-plan ids, the asset objects, cdk change sets; ' +
          'lambda:GetAccountSettings has no resource. The deny on cdk-*-roles only narrows.',
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
  NagSuppressions.addResourceSuppressions(
    stack.executionPolicy,
    reason(
      'The CloudFormation execution role creates the whole app: each service is scoped to the resources it ' +
        'names (StoreOrders-*, store-orders-*), and to the Region where ids are random (API Gateway, CodeDeploy).',
    ),
  );
  NagSuppressions.addResourceSuppressions(
    stack.permissionsBoundary,
    reason(
      'A boundary grants nothing: it caps every role the stacks make at the services and names of this ' +
        'project (StoreOrders-*, store-orders-*, the Region where ids are random), with no IAM change at all.',
    ),
  );
}
