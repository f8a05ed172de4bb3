import { RemovalPolicy } from 'aws-cdk-lib/core';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Grant } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { TABLES, type TableId, type TableSpec } from '../../lib/contract/tables';

import { INDEX_QUERY_PREFIX, type TableAccess, type TableAction } from '../../lib/contract/deployment';

export interface ServiceTablesProps {
  /** Delete the tables with the stack and leave them unprotected; staging only. */
  disposable: boolean;
}

const CONSTRUCT_IDS: Record<TableId, string> = {
  orders: 'Orders',
  pets: 'Pets',
  apiKeys: 'ApiKeys',
  rateLimits: 'RateLimits',
  webhookEndpoints: 'WebhookEndpoints',
  webhookDeliveries: 'WebhookDeliveries',
};

/** The tables declared in lib/contract/tables.ts. Names are left to CloudFormation so stages never collide. */
export class ServiceTables extends Construct {
  readonly tables: Record<TableId, Table>;

  constructor(scope: Construct, id: string, props: ServiceTablesProps) {
    super(scope, id);
    const make = (tableId: TableId): Table => {
      const spec: TableSpec = TABLES[tableId];
      const table = new Table(this, CONSTRUCT_IDS[tableId], {
        partitionKey: {
          name: spec.partitionKey.name,
          type: spec.partitionKey.type === 'N' ? AttributeType.NUMBER : AttributeType.STRING,
        },
        ...(spec.sortKey ? { sortKey: { name: spec.sortKey.name, type: AttributeType.STRING } } : {}),
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryption.AWS_MANAGED,
        ...(spec.ttlAttribute ? { timeToLiveAttribute: spec.ttlAttribute } : {}),
        // The change stream its consumers read (infra/constructs/change-stream.ts).
        ...(spec.stream ? { stream: StreamViewType[spec.stream] } : {}),
        deletionProtection: !props.disposable,
        removalPolicy: props.disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      });
      // The indexes (lib/contract/tables.ts): every attribute projected, so a page is Queries only,
      // unless the index names what it carries (the enabled endpoints' carries no secret).
      for (const index of spec.indexes ?? []) {
        table.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: { name: index.partitionKey.name, type: AttributeType.STRING },
          sortKey: { name: index.sortKey.name, type: AttributeType.STRING },
          ...(index.projected
            ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projected] }
            : { projectionType: ProjectionType.ALL }),
        });
      }
      return table;
    };
    this.tables = {
      orders: make('orders'),
      pets: make('pets'),
      apiKeys: make('apiKeys'),
      rateLimits: make('rateLimits'),
      webhookEndpoints: make('webhookEndpoints'),
      webhookDeliveries: make('webhookDeliveries'),
    };
  }

  /**
   * Gives a function a table's name (in the variable lib/contract/tables.ts names) and exactly the listed
   * actions on it, so each function's environment and policy follow from one access declaration.
   */
  bind(fn: LambdaFunction, access: TableAccess): void {
    for (const tableId of Object.keys(access) as TableId[]) {
      const actions = access[tableId];
      if (!actions || actions.length === 0) continue;
      const table = this.tables[tableId];
      fn.addEnvironment(TABLES[tableId].envVar, table.tableName);
      // Named resources only: Table.grant would add `index/*` to every action once the table has indexes.
      const onTable = actions.filter((action): action is TableAction => !action.startsWith(INDEX_QUERY_PREFIX));
      if (onTable.length) Grant.addToPrincipal({ grantee: fn, actions: onTable, resourceArns: [table.tableArn] });
      const declared = ((TABLES[tableId] as TableSpec).indexes ?? []).map((index) => index.name);
      const indexes = actions.flatMap((action) =>
        action.startsWith(INDEX_QUERY_PREFIX) ? [action.slice(INDEX_QUERY_PREFIX.length)] : [],
      );
      for (const index of indexes)
        if (!declared.includes(index)) throw new Error(`Table ${tableId} has no index ${index} to Query`);
      if (indexes.length)
        Grant.addToPrincipal({
          grantee: fn,
          actions: ['dynamodb:Query'],
          resourceArns: indexes.map((index) => `${table.tableArn}/index/${index}`),
        });
    }
  }
}
