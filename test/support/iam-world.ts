// The synthesised templates as AWS would hold them once deployed: every Ref and Fn::GetAtt in a
// policy turned into the ARN or name the resource would have, so an IAM policy simulator can
// evaluate the policies against real-looking requests. A name the template does not give is the
// one CloudFormation generates, `<stack name>-<logical id>-<random>`
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html),
// except a secret's, which the stack name is not part of: `<logical id>-<random>`, to which Secrets
// Manager adds `-` and six characters in the ARN. Ids a service picks (an event source mapping's
// UUID, a stream's label) are made up, one per resource.
import { createHash } from 'node:crypto';
import { PSEUDO } from './cfn-values';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export interface PolicyDocument {
  Version?: string;
  Statement: Json[];
}
export interface TemplateResource {
  Type: string;
  Properties?: Record<string, Json>;
}
export interface TemplateJson {
  Resources: Record<string, TemplateResource>;
  Outputs?: Record<string, { Value: Json }>;
}

const { 'AWS::Partition': PARTITION, 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT } = PSEUDO;
/** The random part CloudFormation adds to a generated name. */
export const GENERATED_SUFFIX = '1A2B3C4D5E6F';

/** The property that names a resource of each type, when the template gives the name itself. */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::IAM::Role': 'RoleName',
  'AWS::IAM::ManagedPolicy': 'ManagedPolicyName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::CodeDeploy::Application': 'ApplicationName',
  'AWS::CodeDeploy::DeploymentGroup': 'DeploymentGroupName',
  'AWS::CodeDeploy::DeploymentConfig': 'DeploymentConfigName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::CloudWatch::Dashboard': 'DashboardName',
  'AWS::WAFv2::WebACL': 'Name',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::Scheduler::Schedule': 'Name',
};

/** A stream's label: the time DynamoDB made the stream (list_amazondynamodb.html, `${StreamLabel}`). */
const STREAM_LABEL = '2025-01-01T00:00:00.000';

export const arnOf = (service: string, resource: string, region: string = REGION) =>
  `arn:${PARTITION}:${service}:${region}:${ACCOUNT}:${resource}`;
export const stackArnOf = (stackName: string) => arnOf('cloudformation', `stack/${stackName}/1a2b3c4d`);

/** One deployed stack: its resources' names and ARNs, and its templates' values resolved to them. */
export class DeployedStack {
  constructor(
    readonly stackName: string,
    readonly template: TemplateJson,
  ) {}

  resource(id: string): TemplateResource {
    const found = this.template.Resources[id];
    if (!found) throw new Error(`${this.stackName} has no resource ${id}`);
    return found;
  }

  /** The logical ids of every resource of a type. */
  ofType(type: string): string[] {
    return Object.entries(this.template.Resources)
      .filter(([, r]) => r.Type === type)
      .map(([id]) => id);
  }

  name(id: string): string {
    const resource = this.resource(id);
    const property = NAME_PROPERTY[resource.Type];
    const given = property === undefined ? undefined : resource.Properties?.[property];
    if (given !== undefined) return this.string(given);
    if (resource.Type === 'AWS::SecretsManager::Secret') return `${id}-${GENERATED_SUFFIX}`;
    return `${this.stackName}-${id}-${GENERATED_SUFFIX}`;
  }

  /** What `Fn::GetAtt [id, Arn]` gives, for the types the policies name. */
  arn(id: string): string {
    const { Type } = this.resource(id);
    const name = this.name(id);
    switch (Type) {
      case 'AWS::DynamoDB::Table':
        return arnOf('dynamodb', `table/${name}`);
      case 'AWS::Logs::LogGroup':
        return arnOf('logs', `log-group:${name}:*`);
      case 'AWS::Lambda::Function':
        return arnOf('lambda', `function:${name}`);
      case 'AWS::IAM::Role':
        return arnOf('iam', `role/${name}`, '');
      case 'AWS::IAM::ManagedPolicy':
        return arnOf('iam', `policy/${name}`, '');
      case 'AWS::SecretsManager::Secret':
        return arnOf('secretsmanager', `secret:${name}-AbCdEf`);
      case 'AWS::SNS::Topic':
        return arnOf('sns', name);
      case 'AWS::SQS::Queue':
        return arnOf('sqs', name);
      case 'AWS::Lambda::EventSourceMapping':
        return arnOf('lambda', `event-source-mapping:${this.ref(id)}`);
      case 'AWS::CloudWatch::Alarm':
        return arnOf('cloudwatch', `alarm:${name}`);
      case 'AWS::WAFv2::WebACL':
        // list_awswafv2.html: `${Scope}/webacl/${Name}/${Id}`, the scope in lower case.
        return arnOf(
          'wafv2',
          `${this.string(this.resource(id).Properties?.Scope ?? null).toLowerCase()}/webacl/${name}/a1b2c3d4`,
        );
      case 'AWS::Scheduler::Schedule':
        // list_amazoneventbridgescheduler.html: `schedule/${GroupName}/${ScheduleName}`; the stacks' are in `default`.
        return arnOf(
          'scheduler',
          `schedule/${this.string(this.resource(id).Properties?.GroupName ?? 'default')}/${name}`,
        );
      case 'AWS::Lambda::Version':
        return this.ref(id);
      case 'AWS::Lambda::Alias':
        return this.ref(id);
      default:
        throw new Error(`No ARN form for ${Type} (${this.stackName} ${id})`);
    }
  }

  /** What `Fn::GetAtt [id, StreamArn]` gives: the table's stream. */
  streamArn(id: string): string {
    if (this.resource(id).Properties?.StreamSpecification === undefined) throw new Error(`${id} has no stream`);
    return `${this.arn(id)}/stream/${STREAM_LABEL}`;
  }

  /**
   * The function an event source mapping invokes, as `lambda:FunctionArn` names it: the full ARN
   * of what its FunctionName names (a name, with its alias, in these templates).
   */
  invokedFunctionArn(id: string): string {
    const name = this.string(this.resource(id).Properties?.FunctionName ?? null);
    return name.startsWith('arn:') ? name : arnOf('lambda', `function:${name}`);
  }

  /** What `Ref` gives, for the types the policies name. */
  ref(id: string): string {
    const resource = this.resource(id);
    switch (resource.Type) {
      case 'AWS::SecretsManager::Secret':
      case 'AWS::SNS::Topic':
      case 'AWS::IAM::ManagedPolicy':
        return this.arn(id);
      case 'AWS::Lambda::Version':
        return `${arnOf('lambda', `function:${this.string(resource.Properties?.FunctionName ?? null)}`)}:1`;
      case 'AWS::Lambda::Alias':
        return `${arnOf('lambda', `function:${this.string(resource.Properties?.FunctionName ?? null)}`)}:${this.string(resource.Properties?.Name ?? null)}`;
      case 'AWS::SQS::Queue':
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${this.name(id)}`;
      case 'AWS::Lambda::EventSourceMapping': {
        const hex = createHash('sha256').update(`${this.stackName}/${id}`).digest('hex');
        return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
      }
      case 'AWS::IAM::OIDCProvider':
        return arnOf('iam', 'oidc-provider/token.actions.githubusercontent.com', '');
      case 'AWS::ApiGateway::RestApi':
      case 'AWS::ApiGateway::UsagePlan':
        return `${id.slice(0, 6).toLowerCase()}id`;
      default:
        return this.name(id);
    }
  }

  /** A template value, resolved as CloudFormation would resolve it in this stack. */
  value(value: Json): Json {
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const [only] = entries;
    if (entries.length === 1 && only) {
      const [key, arg] = only;
      if (key === 'Ref' && typeof arg === 'string') {
        return arg in PSEUDO ? PSEUDO[arg as keyof typeof PSEUDO] : this.ref(arg);
      }
      if (key === 'Fn::GetAtt' && Array.isArray(arg)) {
        const [id, attribute] = arg as [string, string];
        if (attribute === 'Arn') return this.arn(id);
        if (attribute === 'StreamArn') return this.streamArn(id);
        if (attribute === 'Version') return '1';
        throw new Error(`No value for Fn::GetAtt ${id}.${attribute}`);
      }
      if (key === 'Fn::Join' && Array.isArray(arg)) {
        const [separator, parts] = arg as [string, Json[]];
        return parts.map((part) => this.string(part)).join(separator);
      }
      if (key === 'Fn::Split' && Array.isArray(arg)) {
        const [separator, source] = arg as [string, Json];
        return this.string(source).split(separator);
      }
      if (key === 'Fn::Select' && Array.isArray(arg)) {
        const [index, options] = arg as [number, Json];
        const resolved = this.value(options);
        const chosen = Array.isArray(resolved) ? resolved[Number(index)] : undefined;
        if (chosen === undefined) throw new Error(`Fn::Select ${index} of ${JSON.stringify(options)}`);
        return chosen;
      }
      // Another stack's output (the account stack's CloudWatch role, in a tag): a value, not a grant.
      if (key === 'Fn::GetStackOutput') return `<output of ${JSON.stringify(arg)}>`;
      if (key.startsWith('Fn::')) throw new Error(`No resolution of ${key} in ${this.stackName}`);
    }
    return Object.fromEntries(entries.map(([key, inner]) => [key, this.value(inner)]));
  }

  string(value: Json): string {
    const resolved = this.value(value);
    if (typeof resolved !== 'string') throw new Error(`Not a string: ${JSON.stringify(value)}`);
    return resolved;
  }

  /** The tags the template gives a resource, as `aws:ResourceTag/<key>` request context. */
  tagContext(id: string): Record<string, string> {
    const tags = (this.resource(id).Properties?.Tags ?? []) as { Key: string; Value: Json }[];
    return Object.fromEntries(
      (Array.isArray(tags) ? tags : []).map((tag) => [`aws:ResourceTag/${tag.Key}`, this.string(tag.Value)]),
    );
  }

  /** A role's own policies: inline ones, the AWS::IAM::Policy resources attached to it. */
  rolePolicies(roleId: string): PolicyDocument[] {
    const role = this.resource(roleId);
    const inline = ((role.Properties?.Policies ?? []) as { PolicyDocument: Json }[]).map((p) => p.PolicyDocument);
    const attached = Object.values(this.template.Resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .filter((r) => JSON.stringify(r.Properties?.Roles ?? []).includes(`{"Ref":"${roleId}"}`))
      .map((r) => r.Properties?.PolicyDocument ?? null);
    return [...inline, ...attached].map((document) => this.value(document) as unknown as PolicyDocument);
  }

  /** The ARNs of the managed policies attached to a role, and of its permissions boundary. */
  roleManagedPolicies(roleId: string): { managed: string[]; boundary: string | undefined } {
    const properties = this.resource(roleId).Properties ?? {};
    const managed = ((properties.ManagedPolicyArns ?? []) as Json[]).map((arn) => this.string(arn));
    const boundary = properties.PermissionsBoundary;
    return { managed, boundary: boundary === undefined ? undefined : this.string(boundary) };
  }
}
