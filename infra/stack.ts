import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
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
  type Method,
  MockIntegration,
  PassthroughBehavior,
  Period,
  ResponseTransferMode,
  RestApi,
  SecurityPolicy,
  TokenAuthorizer,
  type Resource,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate, CertificateValidation, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import type { Construct } from 'constructs';
import { AUTHORIZATION_HEADER_PATTERN_SOURCE } from '../lib/keys/format';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../lib/contract/auth';
import { methodNotAllowed } from '../lib/contract/gateway-responses';
import { PLAN_NAMES, usagePlanBackstop, type PlanName } from '../lib/limits/plans';
import { BASE_PATH, ROUTES, type Route } from '../lib/contract/routes';
import { TABLES, type TableId } from '../lib/aws/tables';
import { addGatewayResponses, literal, velocitySafe } from './constructs/gateway-responses';
import { ServiceAlarms } from './constructs/service-alarms';
import { ServiceDashboard } from './constructs/service-dashboard';
import { ServiceFunction, type EntryName } from './constructs/service-function';
import { ServiceTables } from './constructs/service-tables';
import {
  BUFFERED_INTEGRATION_TIMEOUT,
  FUNCTION_SPECS,
  functionTimeout,
  STREAMING_INTEGRATION_HEADROOM,
} from './function-specs';
import { explainNagFindings } from './nag';
import {
  API_URL_OUTPUT,
  DASHBOARD_URL_OUTPUT,
  EXECUTE_API_URL_OUTPUT,
  REST_API_ID_OUTPUT,
  TABLE_NAME_OUTPUTS,
  USAGE_PLAN_ID_OUTPUTS,
} from './outputs';
import type { CustomDomainConfig, StageConfig } from './stages';

/** `/v1` is both the stage name and a custom domain's base path, so every address carries it. */
export const API_STAGE_NAME = BASE_PATH.replace(/^\//, '');

export interface StoreOrdersStackProps extends StackProps {
  config: StageConfig;
}

/** One deployed stage of the Store Orders API. Stages differ only in their StageConfig. */
export class StoreOrdersStack extends Stack {
  readonly config: StageConfig;
  readonly tables: ServiceTables;
  readonly functions: Record<EntryName, ServiceFunction>;
  readonly api: RestApi;
  readonly usagePlans: Record<PlanName, UsagePlan>;
  readonly methodNotAllowed: Resource[] = [];
  /** The method of each route, by operation id. */
  readonly routeMethods: Record<string, Method> = {};
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;

  constructor(scope: Construct, id: string, props: StoreOrdersStackProps) {
    const { config, ...stackProps } = props;
    validateConfig(config);
    super(scope, id, { description: `Store Orders API (${config.stage})`, ...stackProps });
    this.config = config;

    this.tables = new ServiceTables(this, 'Tables', { disposable: config.disposableData });
    this.functions = this.createFunctions();
    this.api = this.createApi(this.createAuthorizer(this.functions.authorizer.function));
    this.addRoutes();
    addGatewayResponses(this.api);
    this.usagePlans = this.createUsagePlans();
    const customDomainUrl = this.config.customDomain ? this.addCustomDomain(this.config.customDomain) : undefined;
    this.alarms = this.createAlarms();
    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      stageName: config.stage,
      stage: this.api.deploymentStage,
      functions: Object.values(this.functions).map((fn) => fn.function),
    });
    this.addOutputs(customDomainUrl);
    explainNagFindings(this);
  }

  private createFunctions(): Record<EntryName, ServiceFunction> {
    const make = (entry: EntryName): ServiceFunction => {
      const spec = FUNCTION_SPECS[entry];
      const fn = new ServiceFunction(this, pascalCase(entry), {
        entry,
        memorySize: spec.memoryMb,
        timeout: functionTimeout(entry),
        description: spec.description,
        logRetention: this.config.logRetention,
        logRemovalPolicy: this.removalPolicy(),
      });
      this.tables.bind(fn.function, spec.access);
      return fn;
    };
    return { authorizer: make('authorizer'), 'list-orders': make('list-orders'), 'cancel-order': make('cancel-order') };
  }

  private createAuthorizer(handler: NodejsFunction): TokenAuthorizer {
    return new TokenAuthorizer(this, 'BearerKeyAuthorizer', {
      handler,
      identitySource: IdentitySource.header('Authorization'),
      // Malformed headers are refused by API Gateway itself, without invoking (or paying for) the function.
      validationRegex: AUTHORIZATION_HEADER_PATTERN_SOURCE,
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });
  }

  private createApi(authorizer: TokenAuthorizer): RestApi {
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: this.config.logRetention,
      removalPolicy: this.removalPolicy(),
    });
    return new RestApi(this, 'Api', {
      restApiName: `store-orders-${this.config.stage}`,
      description: `Store Orders API, ${this.config.stage}`,
      // Regional: a streamed response may idle for up to five minutes, against 30 s when edge-optimized.
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // The authorizer returns the key's usage identifier, which selects the usage plan.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // Execution logging needs the account-level CloudWatch role; it is kept when a stack goes.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      defaultMethodOptions: { authorizer, apiKeyRequired: true },
      deployOptions: {
        stageName: API_STAGE_NAME,
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.INFO,
        // Data trace would log request and response bodies, Authorization headers included.
        dataTraceEnabled: false,
        throttlingRateLimit: this.config.throttle.rateLimit,
        throttlingBurstLimit: this.config.throttle.burstLimit,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: accessLogFormat(),
      },
    });
  }

  private addRoutes(): void {
    const byPath = new Map<string, Route[]>();
    for (const route of ROUTES) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    for (const [path, routes] of byPath) {
      const resource = this.api.root.resourceForPath(path);
      for (const route of routes) {
        this.routeMethods[route.operationId] = resource.addMethod(route.method, this.integrationFor(route), {
          operationName: route.operationId,
        });
      }
      this.addMethodNotAllowed(resource, routes);
    }
  }

  private integrationFor(route: Route): LambdaIntegration {
    const fn = this.functions[route.function].function;
    return new LambdaIntegration(fn, {
      proxy: true,
      allowTestInvoke: false,
      ...(route.streaming
        ? {
            responseTransferMode: ResponseTransferMode.STREAM,
            timeout: functionTimeout(route.function).plus(STREAMING_INTEGRATION_HEADROOM),
          }
        : { responseTransferMode: ResponseTransferMode.BUFFERED, timeout: BUFFERED_INTEGRATION_TIMEOUT }),
    });
  }

  /**
   * Any other method on a routed path is answered 405 by API Gateway itself, as the local gateway
   * does; without this, API Gateway would answer 403 MISSING_AUTHENTICATION_TOKEN (our 404).
   * It needs no key: it reveals only which methods exist, which the OpenAPI document publishes.
   */
  private addMethodNotAllowed(resource: Resource, routes: Route[]): void {
    const answer = methodNotAllowed(routes.map((r) => r.method));
    const integration = new MockIntegration({
      passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
      requestTemplates: { 'application/json': `{"statusCode": ${answer.statusCode}}` },
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

  private createUsagePlans(): Record<PlanName, UsagePlan> {
    const plans = {} as Record<PlanName, UsagePlan>;
    for (const plan of PLAN_NAMES) {
      const { throttle, quotaPerDay } = usagePlanBackstop(plan);
      plans[plan] = this.api.addUsagePlan(`UsagePlan${pascalCase(plan)}`, {
        name: `store-orders-${this.config.stage}-${plan}`,
        description: `Backstop for ${plan} keys; the service's own limiter answers first.`,
        ...(throttle ? { throttle } : {}),
        ...(quotaPerDay ? { quota: { limit: quotaPerDay, period: Period.DAY } } : {}),
        apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
      });
    }
    return plans;
  }

  /** Returns the base URL on the custom domain. */
  private addCustomDomain(config: CustomDomainConfig): string {
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
    domain.addBasePathMapping(this.api, { basePath: API_STAGE_NAME, stage: this.api.deploymentStage });
    if (zone) {
      new ARecord(this, 'CustomDomainAlias', {
        zone,
        recordName: config.domainName,
        target: RecordTarget.fromAlias(new ApiGatewayDomain(domain)),
      });
    }
    return `https://${config.domainName}${BASE_PATH}/`;
  }

  private createAlarms(): ServiceAlarms {
    return new ServiceAlarms(this, 'Alarms', {
      stage: this.api.deploymentStage,
      bufferedRoutes: Object.fromEntries(
        ROUTES.filter((r) => !r.streaming).map((r) => [r.operationId, this.routeMethods[r.operationId] as Method]),
      ),
      authorizer: this.functions.authorizer.function,
      longRunning: Object.fromEntries(
        ROUTES.filter((r) => r.streaming).map((r) => [r.function, { fn: this.functions[r.function].function, timeout: functionTimeout(r.function) }]),
      ),
      functions: Object.fromEntries(Object.entries(this.functions).map(([name, fn]) => [name, fn.function])),
      config: this.config.alarms,
    });
  }

  private addOutputs(customDomainUrl: string | undefined): void {
    new CfnOutput(this, API_URL_OUTPUT, {
      value: customDomainUrl ?? this.api.url,
      description: 'Base URL of the API, ending in /v1/',
    });
    new CfnOutput(this, EXECUTE_API_URL_OUTPUT, { value: this.api.url, description: 'execute-api URL of the v1 stage' });
    new CfnOutput(this, REST_API_ID_OUTPUT, { value: this.api.restApiId });
    new CfnOutput(this, DASHBOARD_URL_OUTPUT, { value: this.dashboard.url, description: 'CloudWatch dashboard of this stage' });
    for (const tableId of Object.keys(TABLE_NAME_OUTPUTS) as TableId[]) {
      new CfnOutput(this, TABLE_NAME_OUTPUTS[tableId], {
        value: this.tables.tables[tableId].tableName,
        description: `Physical name of the table the functions read from ${TABLES[tableId].envVar}`,
      });
    }
    for (const plan of PLAN_NAMES) {
      new CfnOutput(this, USAGE_PLAN_ID_OUTPUTS[plan], {
        value: this.usagePlans[plan].usagePlanId,
        description: `Usage plan that ${plan} keys' API Gateway API keys are attached to`,
      });
    }
  }

  private removalPolicy(): RemovalPolicy {
    return this.config.disposableData ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
  }
}

/**
 * Refuses, before anything is built, a configuration that would lose prod data, throttle before the
 * usage plans do, or name a custom domain with no way to get its certificate.
 */
export function validateConfig(config: StageConfig): void {
  if (config.stage === 'prod' && config.disposableData) {
    throw new Error('prod data must be retained: disposableData is for staging only.');
  }
  const domain = config.customDomain;
  if (domain && !domain.certificateArn && !domain.hostedZone) {
    throw new Error(`Custom domain ${domain.domainName} needs a certificateArn or a hostedZone.`);
  }
  for (const plan of PLAN_NAMES) {
    const throttle = usagePlanBackstop(plan).throttle;
    if (!throttle) continue;
    if (config.throttle.rateLimit < throttle.rateLimit || config.throttle.burstLimit < throttle.burstLimit) {
      throw new Error(`Stage throttling of ${config.stage} is stricter than the ${plan} usage plan.`);
    }
  }
}

/** JSON access log lines; the Authorization header is never logged, only who it identified. */
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

function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
