import { RemovalPolicy } from 'aws-cdk-lib/core';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { TABLES, type TableId, type TableSpec } from '../../lib/contract/tables';

import type { TableAccess } from '../../lib/contract/deployment';

export interface ServiceTablesProps {
  /** Delete the tables with the stack and leave them unprotected; staging only. */
  disposable: boolean;
}

const CONSTRUCT_IDS: Record<TableId, string> = { orders: 'Orders', apiKeys: 'ApiKeys', rateLimits: 'RateLimits' };

/** The tables declared in lib/contract/tables.ts. Names are left to CloudFormation so stages never collide. */
export class ServiceTables extends Construct {
  readonly tables: Record<TableId, Table>;

  constructor(scope: Construct, id: string, props: ServiceTablesProps) {
    super(scope, id);
    const make = (tableId: TableId): Table => {
      const spec: TableSpec = TABLES[tableId];
      return new Table(this, CONSTRUCT_IDS[tableId], {
        partitionKey: {
          name: spec.partitionKey.name,
          type: spec.partitionKey.type === 'N' ? AttributeType.NUMBER : AttributeType.STRING,
        },
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryption.AWS_MANAGED,
        ...(spec.ttlAttribute ? { timeToLiveAttribute: spec.ttlAttribute } : {}),
        deletionProtection: !props.disposable,
        removalPolicy: props.disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      });
    };
    this.tables = { orders: make('orders'), apiKeys: make('apiKeys'), rateLimits: make('rateLimits') };
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
      table.grant(fn, ...actions);
    }
  }
}
