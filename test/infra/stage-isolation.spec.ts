// Stages cannot reach each other, shown with an IAM policy simulator (test/support/iam-simulator.ts)
// on the shared synthesis. Every role of a stage carries that stage's permissions boundary (its
// functions', release hooks' and CodeDeploy roles, its deploy role), and its execution role may
// make no role without it, so nothing such a role does can exceed what the boundary allows: the
// worst role a template of the stage could make, one allowed everything under the boundary, and
// the stage's CloudFormation execution role (its execution policy, no boundary) are refused every
// action of the Service Authorization Reference on the other stage's tables, secrets, stack,
// functions, roles, log groups, APIs, API stages, usage plans, web ACL, event source mapping,
// dead-letter queue, table stream and schedule, and so is the stage's deploy role; and each real
// role is allowed all it needs (the deploy role: cdk's deploy, the preflight's reads, `canary-key
// create`'s calls, on its own stage's canary secret and tables; the sync watch: its stream, its
// queue, its orders; event delivery: its queue and stream; the execution role: its stage's mapping,
// queue and schedule).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import {
  CANARY_KEY_SECRET_TAG,
  STAGE_NAMES,
  stackNameFor,
  STREAMING_PROBE_FUNCTION,
  type StageName,
} from '../../lib/contract/deployment';
import { FUNCTIONS, INDEX_QUERY_PREFIX, type FunctionId } from '../../lib/contract/deployment';
import { stageBootstrap } from '../../infra/pipeline/bootstrap';
import {
  generatedNamePrefix,
  PIPELINE_ROLE_NAMES,
  projectNamePrefix,
  STAGE_TAG,
  STAGE_TAGGED_TYPES,
} from '../../infra/pipeline/names';
import { CDK_DEPLOY_STACK_ACTIONS, stackDeletionRefused } from '../../infra/pipeline/permissions';
import { RESOURCE_TYPE_ACTIONS } from '../../infra/pipeline/resource-actions';
import {
  CREATE_MAPPING_ACTION,
  DEAD_LETTER_SEND_ACTIONS,
  STREAM_READ_ACTIONS,
} from '../../infra/pipeline/stream-permissions';
import { QUEUE_CONSUME_ACTIONS, QUEUE_SEND_ACTIONS } from '../../infra/pipeline/queue-permissions';
import { SCHEDULE_ACTIONS, SCHEDULE_GROUP } from '../../infra/pipeline/schedule-permissions';
import { AWS_MANAGED_POLICIES } from '../support/aws-managed-policies';
import { PSEUDO } from '../support/cfn-values';
import {
  actionsOnResourceType,
  decide,
  decideFirstPlaced,
  grantedRequests,
  resourceTypesOf,
  type Principal,
  type Request,
} from '../support/iam-simulator';
import {
  arnOf,
  DeployedStack,
  stackArnOf,
  type Json,
  type PolicyDocument,
  type TemplateJson,
} from '../support/iam-world';
import { logicalId, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
let stages: Record<StageName, DeployedStack>;
let pipeline: DeployedStack;
beforeAll(() => {
  synthesised = synthesiseStages();
  stages = Object.fromEntries(
    synthesised.stages.map(({ stage, template }) => [
      stage,
      new DeployedStack(stackNameFor(stage), template.toJSON() as TemplateJson),
    ]),
  ) as Record<StageName, DeployedStack>;
  pipeline = new DeployedStack('StoreOrders-pipeline', synthesised.pipeline.template.toJSON() as TemplateJson);
});

const { 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT } = PSEUDO;
const other = (stage: StageName): StageName => STAGE_NAMES.find((s) => s !== stage) ?? stage;

/** A value the pipeline stack declares (tokens for the partition, account, Region), as deployed. */
const concrete = (value: string) => pipeline.string(synthesised.pipeline.stack.resolve(value) as string);

/** A managed policy of the pipeline stack (an execution policy, a boundary), by its ARN. */
function managedPolicy(arn: string): PolicyDocument {
  const id = pipeline.ofType('AWS::IAM::ManagedPolicy').find((policyId) => pipeline.arn(policyId) === arn);
  const awsManaged = AWS_MANAGED_POLICIES[arn];
  if (id === undefined && awsManaged === undefined) throw new Error(`No policy ${arn} in the synthesis`);
  return id === undefined
    ? (awsManaged as PolicyDocument)
    : (pipeline.value(pipeline.resource(id).Properties?.PolicyDocument ?? null) as unknown as PolicyDocument);
}

function rolePrincipal(stack: DeployedStack, roleId: string, name: string): Principal {
  const { managed, boundary } = stack.roleManagedPolicies(roleId);
  return {
    name,
    arn: stack.arn(roleId),
    identity: [...stack.rolePolicies(roleId), ...managed.map(managedPolicy)],
    ...(boundary === undefined ? {} : { boundary: managedPolicy(boundary) }),
  };
}

const deployRoleId = (stage: StageName) => {
  const id = pipeline
    .ofType('AWS::IAM::Role')
    .find((roleId) => pipeline.name(roleId) === PIPELINE_ROLE_NAMES.deploy(stage));
  if (id === undefined) throw new Error(`No deploy role for ${stage}`);
  return id;
};

const boundaryArn = (stage: StageName) => arnOf('iam', `policy/${PIPELINE_ROLE_NAMES.permissionsBoundary(stage)}`, '');

/** The most any role of the stage can do: allowed everything, under the stage's boundary. */
function worstStageRole(stage: StageName): Principal {
  return {
    name: `any role of ${stage} (allowed everything, under its boundary)`,
    arn: arnOf('iam', `role/${generatedNamePrefix(stage)}Anything-1A2B`, ''),
    identity: [{ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] }],
    boundary: managedPolicy(boundaryArn(stage)),
  };
}

/**
 * KMS's default key policy, which lets IAM policies alone decide who uses the key: a customer
 * managed key given to `cdk bootstrap --bootstrap-kms-key-id` may have only this.
 * https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html
 */
const IAM_DECIDES_KEY_POLICY: PolicyDocument = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: 'kms:*', Resource: '*' }],
};

/** A request decided as IAM would: a KMS key is used under its key policy (IAM_DECIDES_KEY_POLICY unless given). */
const decideOn = (principal: Principal, request: Request, keyPolicy: PolicyDocument = IAM_DECIDES_KEY_POLICY) =>
  decide(principal, request, request.action.startsWith('kms:') ? keyPolicy : undefined);

/** The stage's bootstrap execution role: its policy is the stage's execution policy, and no boundary. */
function executionRole(stage: StageName): Principal {
  return {
    name: `${stage} CloudFormation execution role`,
    arn: concrete(stageBootstrap(stage).executionRoleArn),
    identity: [managedPolicy(arnOf('iam', `policy/${PIPELINE_ROLE_NAMES.executionPolicy(stage)}`, ''))],
  };
}

interface Target {
  what: string;
  service: string;
  resourceType: string;
  resource: string;
  context: Record<string, string>;
}

/** One resource of each kind the stage holds, as AWS names it, with the tags its template gives it. */
function stageTargets(stage: StageName): Target[] {
  const stack = stages[stage];
  const first = (type: string) => {
    const id = stack.ofType(type)[0];
    if (id === undefined) throw new Error(`${stack.stackName} has no ${type}`);
    return id;
  };
  const executionLogs = stack
    .ofType('AWS::Logs::LogGroup')
    .find((id) => stack.name(id).startsWith('API-Gateway-Execution-Logs_'));
  const apiId = first('AWS::ApiGateway::RestApi');
  const planId = first('AWS::ApiGateway::UsagePlan');
  const apiStageId = first('AWS::ApiGateway::Stage');
  const apiStage = stack.resource(apiStageId).Properties ?? {};
  const webAclId = first('AWS::WAFv2::WebACL');
  /** Every resource of a CloudFormation type, by its ARN, with the context a request on it carries. */
  const every = (
    type: string,
    [what, service, resourceType]: [string, string, string],
    context: (id: string) => Record<string, string> = () => ({}),
  ): Target[] =>
    stack
      .ofType(type)
      .map((id) => ({ what: `${what} ${id}`, service, resourceType, resource: stack.arn(id), context: context(id) }));
  return [
    ...every('AWS::DynamoDB::Table', ['table', 'dynamodb', 'table']),
    ...every('AWS::SecretsManager::Secret', ['secret', 'secretsmanager', 'Secret'], (id) => stack.tagContext(id)),
    {
      what: 'stack',
      service: 'cloudformation',
      resourceType: 'stack',
      resource: stackArnOf(stack.stackName),
      context: {},
    },
    ...[first('AWS::Lambda::Function'), first('AWS::Lambda::Alias')].map((id) => ({
      what: `function ${id}`,
      service: 'lambda',
      resourceType: 'function',
      resource: id.includes('Live') ? stack.ref(id) : stack.arn(id),
      context: {},
    })),
    { what: 'role', service: 'iam', resourceType: 'role', resource: stack.arn(first('AWS::IAM::Role')), context: {} },
    ...[first('AWS::Logs::LogGroup'), ...(executionLogs ? [executionLogs] : [])].map((id) => ({
      what: `log group ${id}`,
      service: 'logs',
      resourceType: 'log-group',
      resource: stack.arn(id).replace(/:\*$/, ''),
      context: stack.tagContext(id),
    })),
    {
      what: 'REST API',
      service: 'apigateway',
      resourceType: 'RestApi',
      resource: `arn:aws:apigateway:${REGION}::/restapis/${stack.ref(apiId)}`,
      context: stack.tagContext(apiId),
    },
    {
      what: "a usage plan's keys",
      service: 'apigateway',
      resourceType: 'UsagePlanKeys',
      resource: `arn:aws:apigateway:${REGION}::/usageplans/${stack.ref(planId)}/keys`,
      context: stack.tagContext(planId),
    },
    // What the web ACL is associated with: API Gateway authorizes that as apigateway:SetWebACL on it.
    {
      what: "an API's stage",
      service: 'apigateway',
      resourceType: 'Stage',
      resource: `arn:aws:apigateway:${REGION}::/restapis/${stack.string(apiStage.RestApiId ?? null)}/stages/${stack.string(apiStage.StageName ?? null)}`,
      context: stack.tagContext(apiStageId),
    },
    {
      what: 'web ACL',
      service: 'wafv2',
      resourceType: 'webacl',
      resource: stack.arn(webAclId),
      context: stack.tagContext(webAclId),
    },
    // The sync watch's: a request on a mapping carries its tags and the function it invokes.
    ...every('AWS::Lambda::EventSourceMapping', ['event source mapping', 'lambda', 'eventSourceMapping'], (id) => ({
      ...stack.tagContext(id),
      'lambda:FunctionArn': stack.invokedFunctionArn(id),
    })),
    ...every('AWS::SQS::Queue', ['queue', 'sqs', 'queue']),
    // The index-lag canary's: a schedule's ARN carries its name (no tag: a schedule takes none).
    ...every('AWS::Scheduler::Schedule', ['schedule', 'scheduler', 'schedule']),
    ...streamTables(stack).map((id) => ({
      what: `stream of table ${id}`,
      service: 'dynamodb',
      resourceType: 'stream',
      resource: stack.streamArn(id),
      context: {},
    })),
  ];
}

/** The tables of a stack that have a stream. */
const streamTables = (stack: DeployedStack) =>
  stack.ofType('AWS::DynamoDB::Table').filter((id) => stack.resource(id).Properties?.StreamSpecification);

async function allowedAmong(principals: Principal[], requests: (Request & { what: string })[]): Promise<string[]> {
  const allowed: string[] = [];
  for (const principal of principals) {
    for (const request of requests) {
      if ((await decide(principal, request)) === 'Allowed') {
        allowed.push(`${principal.name}: ${request.action} on ${request.what}`);
      }
    }
  }
  return allowed;
}

describe.each(STAGE_NAMES)('%s', (stage: StageName) => {
  test(`every role of ${stage}, its deploy role too, carries ${stage}'s own boundary`, () => {
    const boundaries = (s: StageName) =>
      new Set([
        ...stages[s].ofType('AWS::IAM::Role').map((id) => stages[s].roleManagedPolicies(id).boundary),
        pipeline.roleManagedPolicies(deployRoleId(s)).boundary,
      ]);
    expect([...boundaries(stage)]).toEqual([boundaryArn(stage)]);
    expect(boundaryArn(stage)).not.toBe(boundaryArn(other(stage)));
  });

  test(`no role of ${stage}, its deploy role and execution role among them, may do anything to the other stage's tables, secrets, stack, functions, roles, logs, APIs, API stages, web ACL, event source mapping, dead-letter queue, table stream, schedule`, async () => {
    const requests: (Request & { what: string })[] = [];
    for (const target of stageTargets(other(stage))) {
      for (const action of await actionsOnResourceType(target.service, target.resourceType)) {
        if ((await resourceTypesOf(action)).wildcardOnly) continue;
        requests.push({
          what: `${other(stage)} ${target.what}`,
          action,
          resource: target.resource,
          context: target.context,
        });
      }
    }
    expect(requests.length).toBeGreaterThan(200);
    expect(requests.filter((r) => r.action.startsWith('wafv2:')).length).toBeGreaterThan(5);
    // The mapping's own actions and its tags', the queue's, the stream's reads.
    for (const kind of ['event source mapping', 'queue', 'stream of table', 'schedule']) {
      expect(requests.filter((r) => r.what.startsWith(`${other(stage)} ${kind}`)).length).toBeGreaterThanOrEqual(3);
    }
    const deployRole = rolePrincipal(pipeline, deployRoleId(stage), `${stage} deploy role`);
    expect(await allowedAmong([worstStageRole(stage), executionRole(stage), deployRole], requests)).toEqual([]);
  }, 120_000);

  test(`every resource of ${stage} whose ARN carries no stage carries ${stage}'s tag, beside any other tags`, () => {
    const stack = stages[stage];
    const tagged = STAGE_TAGGED_TYPES.flatMap((type) => stack.ofType(type));
    expect(tagged.length).toBeGreaterThan(10);
    const untagged = tagged.filter((id) => stack.tagContext(id)[`aws:ResourceTag/${STAGE_TAG}`] !== stage);
    expect(untagged).toEqual([]);
  });

  test('every role is allowed everything its own policies grant it (its boundary takes nothing it needs)', async () => {
    const stack = stages[stage];
    const own: [Principal, PolicyDocument[]][] = [
      ...stack
        .ofType('AWS::IAM::Role')
        .map((id): [Principal, PolicyDocument[]] => [
          rolePrincipal(stack, id, `${stage} role ${id}`),
          stack.rolePolicies(id),
        ]),
      [
        rolePrincipal(pipeline, deployRoleId(stage), `${stage} deploy role`),
        pipeline.rolePolicies(deployRoleId(stage)),
      ],
      [executionRole(stage), executionRole(stage).identity],
    ];
    // A request on one of the stage's resources carries its tags; an action the role's own policy refuses is not granted.
    const tags = new Map(
      Object.keys(stack.template.Resources).flatMap((id) => {
        const context = stack.tagContext(id);
        const arnTypes = ['AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup'];
        return Object.keys(context).length && arnTypes.includes(stack.resource(id).Type)
          ? [[stack.arn(id).replace(/:\*$/, ''), context] as const]
          : [];
      }),
    );
    const refusedByItself = (policies: PolicyDocument[]) =>
      new Set(
        policies
          .flatMap((p) => p.Statement as { Effect: string; Action: string | string[] }[])
          .filter((st) => st.Effect === 'Deny')
          .flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action])),
      );
    const refused: string[] = [];
    let tried = 0;
    for (const [principal, policies] of own) {
      const itsDenials = refusedByItself(policies);
      for (const granted of await grantedRequests(policies)) {
        if (itsDenials.has(granted[0]?.action ?? '')) continue;
        const alternatives = granted.map((r) => ({ ...r, context: { ...tags.get(r.resource), ...r.context } }));
        const kms = alternatives[0]?.action.startsWith('kms:') ? IAM_DECIDES_KEY_POLICY : undefined;
        const placed = await decideFirstPlaced(principal, alternatives, kms);
        if (placed === undefined) {
          refused.push(
            `${principal.name}: ${alternatives[0]?.action} on none of ${alternatives.map((a) => a.resource).join(', ')}`,
          );
          continue;
        }
        tried += 1;
        const { request, decision } = placed;
        if (decision !== 'Allowed')
          refused.push(`${principal.name}: ${request.action} on ${request.resource} ${decision}`);
      }
    }
    expect(tried).toBeGreaterThan(50);
    expect(refused).toEqual([]);
  }, 60_000);

  test('each function may use the tables it declares, as declared', async () => {
    const stack = stages[stage];
    const built = synthesised.stages.find((s) => s.stage === stage)?.stack;
    if (!built) throw new Error(`no ${stage}`);
    const refused: string[] = [];
    for (const [id, settings] of Object.entries(FUNCTIONS) as [FunctionId, (typeof FUNCTIONS)[FunctionId]][]) {
      const role = rolePrincipal(stack, logicalId(built.functions[id].role), `${stage} ${id}`);
      for (const [tableId, declared] of Object.entries(settings.access) as [string, readonly string[]][]) {
        const table = built.tables.tables[tableId as keyof typeof built.tables.tables];
        const tableArn = stack.arn(logicalId(table));
        // `dynamodb:Query index/<name>` is a Query of that index; any other action is on the table.
        for (const entry of declared) {
          const index = entry.startsWith(INDEX_QUERY_PREFIX) ? entry.slice(INDEX_QUERY_PREFIX.length) : undefined;
          const action = index === undefined ? entry : 'dynamodb:Query';
          const resource = index === undefined ? tableArn : `${tableArn}/index/${index}`;
          const decision = await decide(role, { action, resource });
          if (decision !== 'Allowed') refused.push(`${id}: ${action} on ${resource} ${decision}`);
        }
      }
    }
    expect(refused).toEqual([]);
  });

  test("CodeDeploy's role may move the stage's aliases and read its rollback alarms", async () => {
    const stack = stages[stage];
    const built = synthesised.stages.find((s) => s.stage === stage)?.stack;
    if (!built) throw new Error(`no ${stage}`);
    const role = rolePrincipal(stack, logicalId(built.releases.role), `${stage} release role`);
    const alarms = stack
      .ofType('AWS::CodeDeploy::DeploymentGroup')
      .flatMap(
        (id) =>
          (stack.resource(id).Properties?.AlarmConfiguration as { Alarms: { Name: never }[] } | undefined)?.Alarms ??
          [],
      )
      .map((alarm) => arnOf('cloudwatch', `alarm:${stack.string(alarm.Name)}`));
    const aliases = stack.ofType('AWS::Lambda::Alias').map((id) => stack.ref(id));
    expect(alarms.length).toBeGreaterThan(0);
    const requests: Request[] = [
      ...aliases.flatMap((resource) =>
        // (GetProvisionedConcurrencyConfig too, which the simulator cannot place: an alias's ARN has the form of a version's.)
        ['lambda:GetAlias', 'lambda:UpdateAlias'].map((action) => ({
          action,
          resource,
        })),
      ),
      ...alarms.map((resource) => ({ action: 'cloudwatch:DescribeAlarms', resource })),
    ];
    const refused = [];
    for (const request of requests) {
      if ((await decide(role, request)) !== 'Allowed') refused.push(`${request.action} on ${request.resource}`);
    }
    expect(refused).toEqual([]);
  });

  test('the deploy role may deploy its stage as cdk does, through its own bootstrap', async () => {
    const role = rolePrincipal(pipeline, deployRoleId(stage), `${stage} deploy role`);
    const bootstrap = stageBootstrap(stage);
    const bucket = concrete(bootstrap.assetsBucket);
    const object = `arn:aws:s3:::${bucket}/asset.zip`;
    const viaS3 = { 'kms:ViaService': `s3.${REGION}.amazonaws.com`, 'kms:CallerAccount': ACCOUNT };
    const requests: Request[] = [
      ...CDK_DEPLOY_STACK_ACTIONS.filter(
        (a) => !(a === 'cloudformation:DeleteStack' && stackDeletionRefused(stage)),
      ).map((action) => ({ action, resource: stackArnOf(stackNameFor(stage)) })),
      {
        action: 'iam:PassRole',
        resource: concrete(bootstrap.executionRoleArn),
        context: { 'iam:PassedToService': 'cloudformation.amazonaws.com' },
      },
      { action: 's3:PutObject', resource: object },
      { action: 's3:GetObject', resource: object },
      { action: 'kms:GenerateDataKey', resource: arnOf('kms', 'key/1234abcd'), context: viaS3 },
      { action: 'kms:Decrypt', resource: arnOf('kms', 'key/1234abcd'), context: viaS3 },
      { action: 'ssm:GetParameter', resource: concrete(bootstrap.versionParameterArn) },
    ];
    const refused = [];
    for (const request of requests) {
      const decision = await decideOn(role, request);
      if (decision !== 'Allowed') refused.push(`${request.action} on ${request.resource} ${decision}`);
    }
    expect(refused).toEqual([]);
    // Not the other stage's execution role, nor the KMS key outside S3.
    expect(
      await decide(role, {
        action: 'iam:PassRole',
        resource: concrete(stageBootstrap(other(stage)).executionRoleArn),
        context: { 'iam:PassedToService': 'cloudformation.amazonaws.com' },
      }),
    ).not.toBe('Allowed');
    expect(await decideOn(role, { action: 'kms:Decrypt', resource: arnOf('kms', 'key/1234abcd') })).not.toBe('Allowed');
  });

  test("the deploy role may run the preflight and canary-key create on its stage's canary secret and tables alone", async () => {
    const role = rolePrincipal(pipeline, deployRoleId(stage), `${stage} deploy role`);
    const built = (s: StageName) => {
      const found = synthesised.stages.find((x) => x.stage === s)?.stack;
      if (!found) throw new Error(`no ${s}`);
      return found;
    };
    const secret = (s: StageName, which: 'canaryKey' | 'cursorKey') => {
      const id = logicalId(which === 'canaryKey' ? built(s).releases.canaryKey : built(s).cursorKey);
      return { resource: stages[s].arn(id), context: stages[s].tagContext(id) };
    };
    const table = (s: StageName, id: 'apiKeys' | 'rateLimits') => stages[s].arn(logicalId(built(s).tables.tables[id]));
    const functionArn = (s: StageName) => stages[s].arn(stages[s].ofType('AWS::Lambda::Function')[0] ?? '');
    const canary = secret(stage, 'canaryKey');
    expect(canary.context).toMatchObject({
      [`aws:ResourceTag/${STAGE_TAG}`]: stage,
      [`aws:ResourceTag/${CANARY_KEY_SECRET_TAG}`]: stage,
    });
    // tools/deploy/preflight.ts: Lambda's account settings, the stack's functions and their
    // reservations, the streaming probe, the stack's outputs and the canary secret.
    const preflight: Request[] = [
      { action: 'lambda:GetAccountSettings', resource: '*' },
      { action: 'cloudformation:ListStackResources', resource: stackArnOf(stackNameFor(stage)) },
      { action: 'lambda:GetFunctionConcurrency', resource: functionArn(stage) },
      { action: 'lambda:InvokeFunction', resource: arnOf('lambda', `function:${STREAMING_PROBE_FUNCTION}`) },
      { action: 'cloudformation:DescribeStacks', resource: stackArnOf(stackNameFor(stage)) },
      { action: 'secretsmanager:GetSecretValue', ...canary },
    ];
    // tools/admin/commands/canary-key.ts: the stack's outputs; AWS's clock probed with a GetItem of
    // the key table; the held key looked up, the new one stored, the previous found and revoked,
    // with its limiter marks; the secret read and written.
    const canaryKeyCreate: Request[] = [
      { action: 'cloudformation:DescribeStacks', resource: stackArnOf(stackNameFor(stage)) },
      ...['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Scan'].map((action) => ({
        action,
        resource: table(stage, 'apiKeys'),
      })),
      { action: 'dynamodb:UpdateItem', resource: table(stage, 'rateLimits') },
      { action: 'secretsmanager:GetSecretValue', ...canary },
      { action: 'secretsmanager:PutSecretValue', ...canary },
    ];
    const refused: string[] = [];
    for (const request of [...preflight, ...canaryKeyCreate]) {
      const decision = await decide(role, request);
      if (decision !== 'Allowed') refused.push(`${request.action} on ${request.resource} ${decision}`);
    }
    expect(refused).toEqual([]);
    // Not the other stage's: its canary secret, its tables, its stack; nor its own cursor key
    // (no canary tag), nor a secret another stage's template (or anyone) made with this stage's
    // canary tag, with the other stage's tag or none: only this stage's stack may give a secret
    // this stage's tag (the execution policies refuse it to the other stage).
    const otherCanary = secret(other(stage), 'canaryKey');
    const impostor = (stageTag: Record<string, string>) => ({
      resource: arnOf('secretsmanager', 'secret:Impostor-1A2B-AbCdEf'),
      context: { ...stageTag, [`aws:ResourceTag/${CANARY_KEY_SECRET_TAG}`]: stage },
    });
    const elsewhere: Request[] = [
      ...['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'].flatMap((action) => [
        { action, ...otherCanary },
        { action, ...impostor({ [`aws:ResourceTag/${STAGE_TAG}`]: other(stage) }) },
        { action, ...impostor({}) },
        { action, ...secret(stage, 'cursorKey') },
      ]),
      ...['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Scan'].map((action) => ({
        action,
        resource: table(other(stage), 'apiKeys'),
      })),
      { action: 'cloudformation:DescribeStacks', resource: stackArnOf(stackNameFor(other(stage))) },
      { action: 'cloudformation:ListStackResources', resource: stackArnOf(stackNameFor(other(stage))) },
      { action: 'lambda:GetFunctionConcurrency', resource: functionArn(other(stage)) },
    ];
    const allowed: string[] = [];
    for (const request of elsewhere) {
      if ((await decide(role, request)) === 'Allowed') allowed.push(`${request.action} on ${request.resource}`);
    }
    expect(allowed).toEqual([]);
  });

  test("the sync watch may read its stage's orders stream, send to its queue and re-stamp its orders, none of the other stage's", async () => {
    const builtStack = (s: StageName) => {
      const found = synthesised.stages.find((x) => x.stage === s)?.stack;
      if (!found) throw new Error(`no ${s}`);
      return found;
    };
    const watch = builtStack(stage).functions['sync-watch'];
    const role = rolePrincipal(stages[stage], logicalId(watch.role), `${stage} sync watch`);
    // What the mapping does with the role (with-ddb.html), and the watch's own re-stamp (its declared access).
    const restamps = FUNCTIONS['sync-watch'].access.orders ?? [];
    expect(restamps.length).toBeGreaterThan(0);
    const needs = (s: StageName): Request[] => {
      const orders = logicalId(builtStack(s).tables.tables.orders);
      const queue = stages[s].arn(logicalId(builtStack(s).syncWatch.deadLetters));
      return [
        ...STREAM_READ_ACTIONS.map((action) => ({
          action,
          resource: action === 'dynamodb:ListStreams' ? '*' : stages[s].streamArn(orders),
        })),
        ...DEAD_LETTER_SEND_ACTIONS.map((action) => ({ action, resource: queue })),
        // Its re-stamps on the table, its sweep of an episode of index lag on the by-update index.
        ...restamps.map((entry) =>
          entry.startsWith(INDEX_QUERY_PREFIX)
            ? {
                action: 'dynamodb:Query',
                resource: `${stages[s].arn(orders)}/index/${entry.slice(INDEX_QUERY_PREFIX.length)}`,
              }
            : { action: entry, resource: stages[s].arn(orders) },
        ),
      ];
    };
    expect(streamTables(stages[stage])).toEqual([logicalId(builtStack(stage).tables.tables.orders)]);
    const refused: string[] = [];
    for (const request of needs(stage)) {
      const decision = await decide(role, request);
      if (decision !== 'Allowed') refused.push(`${request.action} on ${request.resource} ${decision}`);
    }
    expect(refused).toEqual([]);
    const allowed: string[] = [];
    for (const request of needs(other(stage)).filter((r) => r.resource !== '*')) {
      if ((await decide(role, request)) === 'Allowed') allowed.push(`${request.action} on ${request.resource}`);
    }
    expect(allowed).toEqual([]);
  });

  test("event delivery's roles may read and send to its stage's delivery queue and read its stream, none of the other stage's", async () => {
    const builtStack = (s: StageName) => {
      const found = synthesised.stages.find((x) => x.stage === s)?.stack;
      if (!found) throw new Error(`no ${s}`);
      return found;
    };
    const roleOf = (id: 'webhook-delivery' | 'webhook-fanout' | 'webhook-endpoints') =>
      rolePrincipal(stages[stage], logicalId(builtStack(stage).functions[id].role), `${stage} ${id}`);
    const queueOf = (s: StageName) => stages[s].arn(logicalId(builtStack(s).webhookDelivery.queue));
    const orders = (s: StageName) => stages[s].streamArn(logicalId(builtStack(s).tables.tables.orders));
    // What each does: the worker's mapping reads the queue, every one of them sends to it, the fan-out's
    // mapping reads the stream and sends a discarded batch's description to its own dead-letter queue.
    const needs = (s: StageName): [Principal, Request][] => [
      ...QUEUE_CONSUME_ACTIONS.map((action): [Principal, Request] => [
        roleOf('webhook-delivery'),
        { action, resource: queueOf(s) },
      ]),
      ...(['webhook-delivery', 'webhook-fanout', 'webhook-endpoints'] as const).flatMap((id) =>
        QUEUE_SEND_ACTIONS.map((action): [Principal, Request] => [roleOf(id), { action, resource: queueOf(s) }]),
      ),
      ...STREAM_READ_ACTIONS.filter((action) => action !== 'dynamodb:ListStreams').map(
        (action): [Principal, Request] => [roleOf('webhook-fanout'), { action, resource: orders(s) }],
      ),
      ...DEAD_LETTER_SEND_ACTIONS.map((action): [Principal, Request] => [
        roleOf('webhook-fanout'),
        { action, resource: stages[s].arn(logicalId(builtStack(s).webhookDelivery.fanout.deadLetters)) },
      ]),
    ];
    const refused: string[] = [];
    for (const [role, request] of needs(stage))
      if ((await decide(role, request)) !== 'Allowed')
        refused.push(`${role.name}: ${request.action} on ${request.resource}`);
    expect(refused).toEqual([]);
    const allowed: string[] = [];
    for (const [role, request] of needs(other(stage)))
      if ((await decide(role, request)) === 'Allowed')
        allowed.push(`${role.name}: ${request.action} on ${request.resource}`);
    expect(allowed).toEqual([]);
  });

  test("the execution role may make, change and delete its stage's mapping and queue; no mapping onto or of the other stage", async () => {
    const role = executionRole(stage);
    const mapping = (s: StageName) => {
      const id = stages[s].ofType('AWS::Lambda::EventSourceMapping')[0] ?? '';
      return {
        resource: stages[s].arn(id),
        tags: stages[s].tagContext(id),
        functionArn: stages[s].invokedFunctionArn(id),
      };
    };
    const queue = (s: StageName) => stages[s].arn(stages[s].ofType('AWS::SQS::Queue')[0] ?? '');
    const own = mapping(stage);
    const theirs = mapping(other(stage));
    expect(own.tags).toEqual({ [`aws:ResourceTag/${STAGE_TAG}`]: stage });
    expect(own.functionArn).toMatch(new RegExp(`:function:${generatedNamePrefix(stage)}.+:live$`));
    const onMapping = (
      target: ReturnType<typeof mapping>,
      action: string,
      functionArn = target.functionArn,
    ): Request => ({
      action,
      resource: target.resource,
      context: { ...target.tags, 'lambda:FunctionArn': functionArn },
    });
    const create = (functionArn: string, tagStage: StageName): Request => ({
      action: CREATE_MAPPING_ACTION,
      resource: '*',
      context: { 'lambda:FunctionArn': functionArn, [`aws:RequestTag/${STAGE_TAG}`]: tagStage },
    });
    const mappingActions = [
      'lambda:GetEventSourceMapping',
      'lambda:UpdateEventSourceMapping',
      'lambda:DeleteEventSourceMapping',
      'lambda:TagResource',
      'lambda:ListTags',
    ];
    const queueActions = ['sqs:CreateQueue', 'sqs:SetQueueAttributes', 'sqs:GetQueueAttributes', 'sqs:DeleteQueue'];
    const mayDo: Request[] = [
      create(own.functionArn, stage),
      ...mappingActions.map((action) => onMapping(own, action)),
      ...queueActions.map((action) => ({ action, resource: queue(stage) })),
    ];
    const refused: string[] = [];
    for (const request of mayDo) {
      const decision = await decide(role, request);
      if (decision !== 'Allowed') refused.push(`${request.action} on ${request.resource} ${decision}`);
    }
    expect(refused).toEqual([]);
    // Not: a mapping onto the other stage's function, or tagged for it; its mapping, whichever
    // function the request names (an update pointing it at this stage's function reads its
    // stream); this stage's own pointed at the other's function; its queue; the stage tag taken off.
    const mayNot: [string, Request][] = [
      ['create onto theirs', create(theirs.functionArn, stage)],
      ['create tagged theirs', create(own.functionArn, other(stage))],
      ...mappingActions.map((action): [string, Request] => [`theirs`, onMapping(theirs, action)]),
      ...mappingActions.map((action): [string, Request] => [
        'theirs, at our function',
        onMapping(theirs, action, own.functionArn),
      ]),
      ['ours, at their function', onMapping(own, 'lambda:UpdateEventSourceMapping', theirs.functionArn)],
      ...queueActions.map((action): [string, Request] => ['their queue', { action, resource: queue(other(stage)) }]),
      [
        'untag ours',
        {
          action: 'lambda:UntagResource',
          resource: own.resource,
          context: { ...own.tags, 'aws:TagKeys': [STAGE_TAG] },
        },
      ],
    ];
    const allowed: string[] = [];
    for (const [what, request] of mayNot) {
      if ((await decide(role, request)) === 'Allowed')
        allowed.push(`${what}: ${request.action} on ${request.resource}`);
    }
    expect(allowed).toEqual([]);
  });

  test("the execution role may make, change and delete its stage's schedule and pass its role to Scheduler; none of the other stage's", async () => {
    const role = executionRole(stage);
    const schedule = (s: StageName) => stages[s].arn(stages[s].ofType('AWS::Scheduler::Schedule')[0] ?? '');
    const scheduleRole = (s: StageName) => {
      const target = stages[s].resource(stages[s].ofType('AWS::Scheduler::Schedule')[0] ?? '').Properties?.Target;
      return stages[s].string((target as { RoleArn: Json }).RoleArn);
    };
    expect(schedule(stage)).toMatch(new RegExp(`:schedule/default/${generatedNamePrefix(stage)}`));
    const passTo = (resource: string, service: string): Request => ({
      action: 'iam:PassRole',
      resource,
      context: { 'iam:PassedToService': service },
    });
    for (const action of SCHEDULE_ACTIONS) {
      expect(await decide(role, { action, resource: schedule(stage) })).toBe('Allowed');
      expect(await decide(role, { action, resource: schedule(other(stage)) })).not.toBe('Allowed');
    }
    expect(await decide(role, passTo(scheduleRole(stage), 'scheduler.amazonaws.com'))).toBe('Allowed');
    expect(await decide(role, passTo(scheduleRole(other(stage)), 'scheduler.amazonaws.com'))).not.toBe('Allowed');
  });

  test("the execution role may attach only its stage's web ACL, and detach none of the other stage's", async () => {
    const role = executionRole(stage);
    const acl = (s: StageName) => stages[s].arn(stages[s].ofType('AWS::WAFv2::WebACL')[0] ?? '');
    const apiStage = (s: StageName) => {
      const id = stages[s].ofType('AWS::ApiGateway::Stage')[0] ?? '';
      const properties = stages[s].resource(id).Properties ?? {};
      return {
        resource: `arn:aws:apigateway:${REGION}::/restapis/${stages[s].string(properties.RestApiId ?? null)}/stages/${stages[s].string(properties.StageName ?? null)}`,
        context: stages[s].tagContext(id),
      };
    };
    expect(acl(stage)).toContain(`/webacl/${generatedNamePrefix(stage)}`);
    for (const action of ['wafv2:AssociateWebACL', 'wafv2:GetWebACL', 'wafv2:UpdateWebACL', 'wafv2:DeleteWebACL']) {
      expect(await decide(role, { action, resource: acl(stage) })).toBe('Allowed');
      expect(await decide(role, { action, resource: acl(other(stage)) })).not.toBe('Allowed');
    }
    // API Gateway's own check of an association (or its removal) on the API stage: the stage's
    // ARN carries ids, so the stage tag decides. WAF's DisassociateWebACL names only the API
    // stage, so this check is what keeps a stage from detaching the other's web ACL.
    expect(await decide(role, { action: 'apigateway:SetWebACL', ...apiStage(stage) })).toBe('Allowed');
    expect(await decide(role, { action: 'apigateway:SetWebACL', ...apiStage(other(stage)) })).toBe('ExplicitlyDenied');
  });

  test(`the execution role may create the resource types ${stage} declares, on ${stage}'s names`, async () => {
    const role = executionRole(stage);
    const types = [...new Set(Object.values(stages[stage].template.Resources).map((r) => r.Type))].filter(
      (type) => type !== 'AWS::CDK::Metadata',
    );
    const refused: string[] = [];
    for (const type of types) {
      const declared = RESOURCE_TYPE_ACTIONS[type];
      if (!declared) throw new Error(`${type} is not in RESOURCE_TYPE_ACTIONS`);
      for (const action of [...declared.actions, ...(declared.withoutResourceType ?? [])]) {
        const request = await stageSample(stage, action, SAMPLE_RESOURCE_TYPES[type]);
        const decision = await decideOn(role, request);
        if (decision !== 'Allowed') refused.push(`${type} ${action} on ${request.resource} ${decision}`);
      }
    }
    expect(refused).toEqual([]);
  });

  test("the execution role may make a role only with the stage's own boundary, and change none of the other stage", async () => {
    const role = executionRole(stage);
    const boundary = (s: StageName) => arnOf('iam', `policy/${PIPELINE_ROLE_NAMES.permissionsBoundary(s)}`, '');
    const ownRole = arnOf('iam', `role/${generatedNamePrefix(stage)}NewRole-1A2B`, '');
    const create = (resource: string, s: StageName) =>
      decide(role, { action: 'iam:CreateRole', resource, context: { 'iam:PermissionsBoundary': boundary(s) } });
    expect(await create(ownRole, stage)).toBe('Allowed');
    expect(await create(ownRole, other(stage))).not.toBe('Allowed');
    expect(await decide(role, { action: 'iam:CreateRole', resource: ownRole })).not.toBe('Allowed');
    const theirs = stages[other(stage)].arn(stages[other(stage)].ofType('AWS::IAM::Role')[0] ?? '');
    expect(await create(theirs, other(stage))).not.toBe('Allowed');
    // Nor tag a resource for the other stage, nor take its own tag off.
    const secret = arnOf('secretsmanager', 'secret:CursorKey-1A2B-AbCdEf');
    expect(
      await decide(role, {
        action: 'secretsmanager:TagResource',
        resource: secret,
        context: { [`aws:ResourceTag/${STAGE_TAG}`]: stage, [`aws:RequestTag/${STAGE_TAG}`]: other(stage) },
      }),
    ).toBe('ExplicitlyDenied');
    expect(
      await decide(role, {
        action: 'secretsmanager:UntagResource',
        resource: secret,
        context: { [`aws:ResourceTag/${STAGE_TAG}`]: stage, 'aws:TagKeys': [STAGE_TAG] },
      }),
    ).toBe('ExplicitlyDenied');
  });
});

test('the prod deploy role is refused deleting the prod stack; staging may recover a failed first create', async () => {
  const decision = async (stage: StageName) =>
    decide(rolePrincipal(pipeline, deployRoleId(stage), `${stage} deploy role`), {
      action: 'cloudformation:DeleteStack',
      resource: stackArnOf(stackNameFor(stage)),
    });
  expect(stackDeletionRefused('prod')).toBe(true);
  expect(await decision('prod')).toBe('ExplicitlyDenied');
  expect(stackDeletionRefused('staging')).toBe(false);
  expect(await decision('staging')).toBe('Allowed');
});

/** The resource types a stage stack makes, for an action that takes several (tagging, listing tags, s3:GetObject). */
const STAGE_RESOURCE_TYPES = [
  'function',
  'log-group',
  'table',
  'role',
  'Secret',
  'alarm',
  'dashboard',
  'topic',
  'application',
  'deploymentgroup',
  'object',
  // WAF's: its web ACL, and the API stage it is associated with.
  'webacl',
  'apigateway',
];

/** The resource type to try an action on for a CloudFormation type, where the action takes several (tagging). */
const SAMPLE_RESOURCE_TYPES: Record<string, string> = { 'AWS::Lambda::EventSourceMapping': 'eventSourceMapping' };

/** The name a sample resource of the stage gets: one CloudFormation would generate. */
const sampleName = (stage: StageName) => `${generatedNamePrefix(stage)}Sample`;

/** The context CloudFormation's requests for the stage carry. */
function cdkContext(stage: StageName): Record<string, string> {
  return {
    [`aws:ResourceTag/${STAGE_TAG}`]: stage,
    [`aws:RequestTag/${STAGE_TAG}`]: stage,
    'iam:PermissionsBoundary': arnOf('iam', `policy/${PIPELINE_ROLE_NAMES.permissionsBoundary(stage)}`, ''),
    'iam:PassedToService': 'lambda.amazonaws.com',
    'kms:ViaService': `s3.${REGION}.amazonaws.com`,
    // An event source mapping's: the function it invokes.
    'lambda:FunctionArn': arnOf('lambda', `function:${sampleName(stage)}`),
  };
}

/**
 * A request the stage's execution role makes for an action: "*" for an action without a resource
 * type, else a resource of the stage of the action's required (or first) resource type, named as
 * the stage names it (of `resourceType`, when the action takes it), with the context
 * CloudFormation's request carries (the stage tag, the boundary of a role it makes, the service a
 * role is passed to, S3 asking KMS, the function a mapping invokes).
 */
async function stageSample(stage: StageName, action: string, resourceType?: string): Promise<Request> {
  const { wildcardOnly, types } = await resourceTypesOf(action);
  if (wildcardOnly) return { action, resource: '*', context: cdkContext(stage) };
  const [service] = action.split(':') as [string];
  // API Gateway's verbs act on its paths: a REST API (POST creates one under /restapis); apigateway:SetWebACL on a stage.
  const apiType = action === 'apigateway:POST' ? 'RestApis' : 'RestApi';
  const type =
    service === 'apigateway' && types.some((t) => t.name === apiType)
      ? apiType
      : (
          types.find((t) => t.name === resourceType) ??
          types.find((t) => t.required) ??
          types.find((t) => STAGE_RESOURCE_TYPES.includes(t.name)) ??
          types[0]
        )?.name;
  // A stage's ARN has a REST API's form and an HTTP API's: the stacks make REST APIs.
  const formats = types.find((t) => t.name === type)?.arnFormats ?? [];
  const format = formats.find((f) => f.includes('/restapis/')) ?? formats[0];
  if (!format) throw new Error(`No resource type of ${action}`);
  const bootstrap = stageBootstrap(stage);
  const values: Record<string, string> = {
    Partition: 'aws',
    Region: REGION,
    Account: ACCOUNT,
    ApplicationName: projectNamePrefix(stage),
    DashboardName: projectNamePrefix(stage),
    DeploymentGroupName: 'Sample',
    StackName: stackNameFor(stage),
    BucketName: concrete(bootstrap.assetsBucket),
    ParameterNameWithoutLeadingSlash: concrete(bootstrap.versionParameterArn).replace(/^.*:parameter\//, ''),
    SecretId: 'CursorKey-1A2B-AbCdEf',
    RestApiId: 'a1b2c3',
    StageName: 'v1',
    // A web ACL in front of API Gateway is regional (list_awswafv2.html: `${Scope}/webacl/...`).
    Scope: 'regional',
    // The stacks' schedules are in the account's default group (schedule-permissions.ts).
    GroupName: SCHEDULE_GROUP,
  };
  const resource = format.replace(/\$\{([^}]+)\}/g, (_, name: string) => values[name] ?? sampleName(stage));
  return { action, resource, context: cdkContext(stage) };
}

describe('KMS and the permissions boundary (the asset bucket is SSE-KMS)', () => {
  /**
   * The key policy of the key `cdk bootstrap --bootstrap-customer-key` makes (the bootstrap
   * template's FileAssetsBucketEncryptionKey): like an AWS managed key's (aws/s3), it grants any
   * principal of the account the key's use through S3 (Principal "*", kms:CallerAccount, kms:ViaService).
   */
  function bootstrapKeyPolicy(): PolicyDocument {
    const file = path.join(
      __dirname,
      '..',
      '..',
      'node_modules',
      'aws-cdk',
      'lib',
      'api',
      'bootstrap',
      'bootstrap-template.yaml',
    );
    const template = parse(readFileSync(file, 'utf8')) as {
      Resources: { FileAssetsBucketEncryptionKey: { Properties: { KeyPolicy: unknown } } };
    };
    const resolved = JSON.stringify(template.Resources.FileAssetsBucketEncryptionKey.Properties.KeyPolicy)
      .replaceAll('{"Ref":"AWS::AccountId"}', JSON.stringify(ACCOUNT))
      .replaceAll('{"Fn::Sub":"s3.${AWS::Region}.amazonaws.com"}', JSON.stringify(`s3.${REGION}.amazonaws.com`))
      .replaceAll(
        '{"Fn::Sub":"${FilePublishingRole.Arn}"}',
        JSON.stringify(arnOf('iam', 'role/cdk-file-publishing', '')),
      );
    return { Version: '2012-10-17', ...(JSON.parse(resolved) as { Statement: Json[] }) };
  }

  const stage: StageName = 'prod';
  const key = arnOf('kms', 'key/1234abcd');
  const throughS3 = { 'kms:ViaService': `s3.${REGION}.amazonaws.com`, 'kms:CallerAccount': ACCOUNT };
  const deployRole = () => rolePrincipal(pipeline, deployRoleId(stage), `${stage} deploy role`);
  /** The deploy role as it would be if its policy and boundary granted no KMS. */
  const withoutKms = (): Principal => {
    const strip = (document: PolicyDocument): PolicyDocument => ({
      ...document,
      Statement: document.Statement.filter((s) => !JSON.stringify(s).includes('"kms:')),
    });
    const role = deployRole();
    return {
      ...role,
      identity: role.identity.map(strip),
      ...(role.boundary ? { boundary: strip(role.boundary) } : {}),
    };
  };
  const uses = ['kms:GenerateDataKey', 'kms:Decrypt'];

  test("with a key policy that grants the account's principals the key through S3, the boundary does not cut it", async () => {
    const policy = bootstrapKeyPolicy();
    expect(JSON.stringify(policy)).toContain('"kms:ViaService"');
    for (const action of uses) {
      expect(await decide(deployRole(), { action, resource: key, context: throughS3 }, policy)).toBe('Allowed');
      expect(await decide(withoutKms(), { action, resource: key, context: throughS3 }, policy)).toBe('Allowed');
      // Only through S3.
      expect(
        await decide(withoutKms(), { action, resource: key, context: { 'kms:CallerAccount': ACCOUNT } }, policy),
      ).not.toBe('Allowed');
    }
  });

  test('with a key policy that leaves it to IAM, the grants in the role and its boundary are what let it', async () => {
    for (const action of uses) {
      expect(await decideOn(deployRole(), { action, resource: key, context: throughS3 })).toBe('Allowed');
      expect(await decideOn(withoutKms(), { action, resource: key, context: throughS3 })).toBe('ImplicitlyDenied');
    }
  });
});
