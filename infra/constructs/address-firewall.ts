import { Aws, Duration, Stack } from 'aws-cdk-lib/core';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import {
  ADDRESS_LIMIT,
  ADDRESS_LIMITED_ANSWER,
  addressLimitProblem,
  type AddressLimit,
} from '../../lib/contract/address-limit';
import { ERRORS, errorJson } from '../../lib/contract/errors';
import { pascalCase } from './names';

/** The rule's name, and the name of its CloudWatch metrics (the `Rule` dimension of AWS/WAFV2). */
export const ADDRESS_RULE_NAME = 'RequestsPerAddress';
const RESPONSE_BODY_KEY = 'AddressRateLimited';

export interface AddressFirewallProps {
  /** The stage's name, in the web ACL's description and metric name. */
  stageName: string;
  /** The API stages the web ACL is put in front of, by their names: v1's and v2's. */
  apiStages: Readonly<Record<string, Stage>>;
  /** lib/contract/address-limit.ts's unless a test asks for another. */
  limit?: AddressLimit;
}

/**
 * An AWS WAF web ACL in front of the stage's APIs: one rate-based rule, per client address (WAF's
 * aggregate key IP, the connection's address), that answers requests from an address over
 * ADDRESS_LIMIT with the service's own Error body (429 ADDRESS_RATE_LIMITED, Retry-After) before
 * API Gateway, the authorizer or any function sees them. One web ACL with one rule for both stages,
 * so an address's v1 and v2 requests are counted together ("AWS WAF tracks and manages web requests
 * separately for each instance of a rate-based rule"), as its keys' limits are.
 * https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statement-type-rate-based.html
 */
export class AddressFirewall extends Construct {
  readonly webAcl: CfnWebACL;
  readonly associations: CfnWebACLAssociation[];

  constructor(scope: Construct, id: string, props: AddressFirewallProps) {
    super(scope, id);
    const limit = props.limit ?? ADDRESS_LIMIT;
    const problem = addressLimitProblem(limit);
    if (problem) throw new Error(`The web ACL cannot be built: ${problem}`);
    const answer = ADDRESS_LIMITED_ANSWER;
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      // Named after its stack, as the names CloudFormation generates for most types are: a web
      // ACL's ARN carries its name (regional/webacl/<name>/<id>, list_awswafv2.html), and the
      // stage's execution policy lets CloudFormation touch only the web ACLs named for the stage
      // (infra/pipeline/execution-policy.ts). What CloudFormation would name an unnamed one is
      // not documented, so it is not left to it.
      name: `${Stack.of(this).stackName}-${id}`,
      description: `Store Orders API ${props.stageName}, requests per client address`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(`StoreOrders-${props.stageName}`),
      // WAF sets Content-Type from the body's content type: application/json.
      customResponseBodies: {
        [RESPONSE_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: errorJson(answer.code) },
      },
      rules: [
        {
          name: ADDRESS_RULE_NAME,
          priority: 0,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: limit.limit,
              evaluationWindowSec: limit.windowSeconds,
            },
          },
          action: {
            block: {
              customResponse: {
                responseCode: ERRORS[answer.code].status,
                customResponseBodyKey: RESPONSE_BODY_KEY,
                responseHeaders: Object.entries(answer.headers).map(([name, value]) => ({ name, value })),
              },
            },
          },
          visibilityConfig: visibility(ADDRESS_RULE_NAME),
        },
      ],
    });
    // An API Gateway REST stage is associated by its ARN (WAF's AssociateWebACL: .../restapis/<id>/stages/<name>).
    this.associations = Object.entries(props.apiStages).map(
      ([name, stage]) =>
        new CfnWebACLAssociation(this, `Association${pascalCase(name)}`, {
          resourceArn: stage.stageArn,
          webAclArn: this.webAcl.attrArn,
        }),
    );
  }

  /**
   * Requests the rule blocked: WAF's BlockedRequests, by web ACL name, Region and rule, reported once
   * a minute (https://docs.aws.amazon.com/waf/latest/developerguide/waf-metrics.html).
   */
  metricBlocked(): Metric {
    return new Metric({
      namespace: 'AWS/WAFV2',
      metricName: 'BlockedRequests',
      // CloudFormation names the web ACL (no physical name is set): its Ref is `name|id|scope`.
      dimensionsMap: { WebACL: this.webAcl.webAclRef.webAclName, Region: Aws.REGION, Rule: ADDRESS_RULE_NAME },
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
  }
}

function visibility(metricName: string): CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true };
}
