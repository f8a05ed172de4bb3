import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  DomainName,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  Period,
  ResponseTransferMode,
  RestApi,
  SecurityPolicy,
  TokenAuthorizer,
  type Method,
  type Resource,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate, CertificateValidation, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { IAlias } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../lib/contract/auth';
import { METHOD_NOT_ALLOWED_CONTENT_TYPES, methodNotAllowed } from '../../lib/contract/gateway-responses';
import {
  basePathOf,
  BASE_PATH,
  binaryMediaTypesOf,
  type FunctionName,
  type OperationId,
  type Route,
} from '../../lib/contract/routes';
import { AUTHORIZATION_HEADER_PATTERN_SOURCE } from '../../lib/core/access/key-format';
import { PLAN_NAMES, usagePlanBackstop, type PlanName } from '../../lib/contract/plans';
import { integrationTimeoutSeconds } from '../../lib/contract/deployment';
import type { CustomDomainConfig, StageConfig } from '../stages';
import { addGatewayResponses, literal, velocitySafe } from './gateway-responses';
import { pascalCase } from './names';

export interface OrdersApiProps {
  config: StageConfig;
  /**
   * The routes this API serves, all under one version prefix (`/v1`, `/v2`): the prefix is both the
   * stage name and the base path on a custom domain, so every address carries it.
   */
  routes: readonly Route<OperationId>[];
  /** Aliases, not functions: what API Gateway invokes is what CodeDeploy shifts on a release. */
  authorizer: IAlias;
  routeFunctions: Record<FunctionName, IAlias>;
  /** What happens to the API's log groups when the stack goes. */
  logRemovalPolicy: RemovalPolicy;
  /**
   * The stage's first API, whose usage plans and custom domain this one joins: its stage is added
   * to each plan (a key works on both and has one quota) and mapped at its base path on the domain.
   * Without it, the API makes the plans and the domain itself.
   */
  joins?: OrdersApi;
}

/** The RestApi's name: v1 keeps the name it was first deployed with; another version adds its prefix. */
export function restApiName(stage: string, basePath: string): string {
  return basePath === BASE_PATH ? `store-orders-${stage}` : `store-orders-${stage}${basePath.replace('/', '-')}`;
}

/**
 * A REST API clients call, one per version prefix: the bearer-key authorizer, the routes given,
 * the gateway's own answers (405, gateway responses), the usage plans, the access and execution
 * logs, and the optional custom domain. Stages of one RestApi share its resource tree, so each
 * version is an API of its own (docs/design.md#deployed-apis).
 */
export class OrdersApi extends Construct {
  readonly api: RestApi;
  readonly authorizer: TokenAuthorizer;
  /** The method of each of its routes, by operation id. */
  readonly routeMethods: Partial<Record<OperationId, Method>> = {};
  /** The resources whose ANY method answers 405. */
  readonly methodNotAllowed: Resource[] = [];
  readonly usagePlans: Record<PlanName, UsagePlan>;
  readonly accessLogs: LogGroup;
  /** The group API Gateway writes execution logs to, created here so that it has a retention. */
  readonly executionLogs: LogGroup;
  /** The version prefix, e.g. `/v1`. */
  readonly basePath: string;
  /** The stage name: the prefix without its slash. */
  readonly stageName: string;
  /** The custom domain, on the API that made it. */
  readonly domain?: DomainName;
  /** The base URL clients use, ending in the prefix and a slash: the custom domain's when there is one. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: OrdersApiProps) {
    super(scope, id);
    const { config } = props;
    this.basePath = singleBasePath(props.routes);
    this.stageName = this.basePath.replace(/^\//, '');
    this.authorizer = new TokenAuthorizer(this, 'BearerKeyAuthorizer', {
      handler: props.authorizer,
      identitySource: IdentitySource.header('Authorization'),
      // Malformed headers are refused by API Gateway itself, without invoking (or paying for) the function.
      validationRegex: AUTHORIZATION_HEADER_PATTERN_SOURCE,
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: config.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    const binaryMediaTypes = binaryMediaTypesOf(props.routes);
    this.api = new RestApi(this, 'Api', {
      restApiName: restApiName(config.stage, this.basePath),
      description:
        this.basePath === BASE_PATH
          ? `Store Orders API, ${config.stage}`
          : `Store Orders API ${this.stageName}, ${config.stage}`,
      // Regional: a streamed response may idle for up to five minutes, against 30 s when edge-optimized.
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // A buffered route's compressed body reaches clients as bytes only through these (lib/contract/routes.ts).
      ...(binaryMediaTypes.length > 0 ? { binaryMediaTypes: [...binaryMediaTypes] } : {}),
      // The authorizer returns the key's usage identifier, which selects the usage plan.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // The account-wide CloudWatch role is owned by the account stack (infra/account-stack.ts).
      cloudWatchRole: false,
      defaultMethodOptions: { authorizer: this.authorizer, apiKeyRequired: true },
      deployOptions: {
        stageName: this.stageName,
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.INFO,
        // Data trace would log request and response bodies, Authorization headers included.
        dataTraceEnabled: false,
        throttlingRateLimit: config.throttle.rateLimit,
        throttlingBurstLimit: config.throttle.burstLimit,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: accessLogFormat(),
      },
    });
    // API Gateway would create this group itself on first use, outside the stack and kept forever.
    // Created first, it has the stage's retention and goes (or stays) with the stack.
    this.executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${this.stageName}`,
      retention: config.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.api.deploymentStage.node.addDependency(this.executionLogs);

    this.addRoutes(props.routes, props.routeFunctions);
    addGatewayResponses(this.api);
    const { joins } = props;
    if (joins) {
      this.usagePlans = joins.usagePlans;
      for (const plan of Object.values(this.usagePlans)) {
        plan.addApiStage({ api: this.api, stage: this.api.deploymentStage });
      }
      joins.domain?.addBasePathMapping(this.api, { basePath: this.stageName, stage: this.api.deploymentStage });
    } else {
      this.usagePlans = this.addUsagePlans(config);
      if (config.customDomain) this.domain = this.addCustomDomain(config.customDomain);
    }
    this.url = config.customDomain ? `https://${config.customDomain.domainName}${this.basePath}/` : this.api.url;
  }

  private addRoutes(routes: readonly Route<OperationId>[], functions: Record<FunctionName, IAlias>): void {
    const byPath = new Map<string, Route<OperationId>[]>();
    for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    for (const [path, routes] of byPath) {
      const resource = this.api.root.resourceForPath(path);
      for (const route of routes) {
        this.routeMethods[route.operationId] = resource.addMethod(route.method, integrationFor(route, functions), {
          operationName: route.operationId,
        });
      }
      this.addMethodNotAllowed(resource, routes);
    }
  }

  /**
   * Any other method on a routed path is answered 405 by API Gateway itself, as the local gateway
   * does; without this, API Gateway would answer 403 MISSING_AUTHENTICATION_TOKEN (our 404).
   * It needs no key: it reveals only which methods exist, which the OpenAPI document publishes.
   */
  private addMethodNotAllowed(resource: Resource, routes: Route[]): void {
    const answer = methodNotAllowed(routes.map((r) => r.method));
    const statusTemplate = `{"statusCode": ${answer.statusCode}}`;
    const integration = new MockIntegration({
      passthroughBehavior: PassthroughBehavior.NEVER,
      requestTemplates: Object.fromEntries(METHOD_NOT_ALLOWED_CONTENT_TYPES.map((type) => [type, statusTemplate])),
      integrationResponses: [
        {
          statusCode: String(answer.statusCode),
          responseTemplates: { 'application/json': velocitySafe(answer.body) },
          responseParameters: Object.fromEntries(
            Object.entries(answer.headers).map(([name, value]) => [`method.response.header.${name}`, literal(value)]),
          ),
        },
      ],
    });
    resource.addMethod('ANY', integration, {
      authorizationType: AuthorizationType.NONE,
      apiKeyRequired: false,
      operationName: `methodNotAllowed${pascalCase(resource.path)}`,
      methodResponses: [
        {
          statusCode: String(answer.statusCode),
          responseParameters: Object.fromEntries(
            Object.keys(answer.headers).map((name) => [`method.response.header.${name}`, true]),
          ),
        },
      ],
    });
    this.methodNotAllowed.push(resource);
  }

  private addUsagePlans(config: StageConfig): Record<PlanName, UsagePlan> {
    const plans = {} as Record<PlanName, UsagePlan>;
    for (const plan of PLAN_NAMES) {
      const { throttle, quotaPerDay } = usagePlanBackstop(plan);
      plans[plan] = this.api.addUsagePlan(`UsagePlan${pascalCase(plan)}`, {
        name: `store-orders-${config.stage}-${plan}`,
        description: `Backstop for ${plan} keys; the service's own limiter answers first.`,
        ...(throttle ? { throttle } : {}),
        ...(quotaPerDay ? { quota: { limit: quotaPerDay, period: Period.DAY } } : {}),
        apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
      });
    }
    return plans;
  }

  /** The domain, its certificate and its alias record, with this API mapped at its base path. */
  private addCustomDomain(config: CustomDomainConfig): DomainName {
    const zone = config.hostedZone
      ? HostedZone.fromHostedZoneAttributes(this, 'HostedZone', config.hostedZone)
      : undefined;
    // validateConfig has made sure there is a certificate ARN or a zone to validate one in.
    const certificate: ICertificate = config.certificateArn
      ? Certificate.fromCertificateArn(this, 'Certificate', config.certificateArn)
      : new Certificate(this, 'Certificate', {
          domainName: config.domainName,
          validation: CertificateValidation.fromDns(zone),
        });
    const domain = new DomainName(this, 'CustomDomain', {
      domainName: config.domainName,
      certificate,
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    domain.addBasePathMapping(this.api, { basePath: this.stageName, stage: this.api.deploymentStage });
    if (zone) {
      new ARecord(this, 'CustomDomainAlias', {
        zone,
        recordName: config.domainName,
        target: RecordTarget.fromAlias(new ApiGatewayDomain(domain)),
      });
    }
    return domain;
  }
}

/** The one version prefix of the routes an API serves. */
function singleBasePath(routes: readonly Route[]): string {
  const prefixes = [...new Set(routes.map(basePathOf))];
  const [prefix] = prefixes;
  if (prefix === undefined || prefixes.length > 1) {
    throw new Error(`An API serves the routes of one version prefix, not ${prefixes.join(', ') || 'none'}`);
  }
  return prefix;
}

function integrationFor(route: Route, functions: Record<FunctionName, IAlias>): LambdaIntegration {
  return new LambdaIntegration(functions[route.function], {
    proxy: true,
    allowTestInvoke: false,
    responseTransferMode: route.streaming ? ResponseTransferMode.STREAM : ResponseTransferMode.BUFFERED,
    timeout: Duration.seconds(integrationTimeoutSeconds(route.function, route.streaming)),
  });
}

/**
 * JSON access log lines. The Authorization header is never logged, only who it identified. The
 * path is logged as its resource template (`/store/orders/{orderId}`), never as requested, so a key
 * a client wrongly puts in the URL (path or query string) does not reach the access log.
 */
function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      extendedRequestId: AccessLogField.contextExtendedRequestId(),
      requestTime: AccessLogField.contextRequestTime(),
      sourceIp: AccessLogField.contextIdentitySourceIp(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
      httpMethod: AccessLogField.contextHttpMethod(),
      resourcePath: AccessLogField.contextResourcePath(),
      protocol: AccessLogField.contextProtocol(),
      status: AccessLogField.contextStatus(),
      responseLength: AccessLogField.contextResponseLength(),
      responseLatency: AccessLogField.contextResponseLatency(),
      integrationLatency: AccessLogField.contextIntegrationLatency(),
      principalId: AccessLogField.contextAuthorizerPrincipalId(),
      apiKeyId: AccessLogField.contextIdentityApiKeyId(),
      errorType: AccessLogField.contextErrorResponseType(),
      errorMessage: AccessLogField.contextErrorMessage(),
      xrayTraceId: AccessLogField.contextXrayTraceId(),
    }),
  );
}
