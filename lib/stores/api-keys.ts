import { GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isPlanName, type Limits, type PlanName } from '../contract/plans';
import { DEFAULT_KEY_SCOPE, isKeyScope, type KeyScope } from '../contract/scopes';
import type { Deadline } from '../commons/deadline';
import { readOptions } from './call-deadlines';
import { conditionalWrite, type Item } from './conditional';
import { numberOf } from './numbers';

/** A stored API key: never the key itself, only its SHA-256 hash. */
export interface ApiKeyRecord {
  id: string;
  hash: string;
  plan: PlanName;
  name?: string;
  /** Custom limits, enterprise keys only. */
  limits?: Limits;
  /** What the key may call; a record written before scopes existed reads as full. */
  scope: KeyScope;
  createdAt: string;
  revokedAt?: string;
  /** The API Gateway API key bound to the key's usage plan, in a deployed stage. */
  gatewayKeyId?: string;
  /**
   * A stage's release canary key (the admin command's `canary-key create`), which only the release
   * hook uses: it has no API Gateway key, and `keys list` and `keys usage` leave it out.
   */
  releaseCanary?: true;
}

/** What a revoke found and left: the record as it is now, and whether an earlier revoke had revoked it. */
export interface RevokeOutcome {
  record: ApiKeyRecord;
  /** True when the key was revoked before this call; its revokedAt is then that earlier time. */
  alreadyRevoked: boolean;
}

export class ApiKeysRepository {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** With the authorizer's `deadline`, the read is given up when that is reached. */
  async get(id: string, deadline?: Deadline): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.table, Key: { id } }), readOptions(deadline));
    return Item ? recordFromItem(Item) : undefined;
  }

  /** Stores a new key record; fails if the id exists (a hash-prefix collision, never expected). */
  async put(record: ApiKeyRecord): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...record },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
  }

  async list(): Promise<ApiKeyRecord[]> {
    const records: ApiKeyRecord[] = [];
    let startKey: Item | undefined;
    do {
      const page = await this.doc.send(new ScanCommand({ TableName: this.table, ExclusiveStartKey: startKey }));
      records.push(...(page.Items ?? []).map(recordFromItem));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /**
   * Marks the key revoked at `at`, unless it is revoked already (the first revoke's time is kept);
   * undefined when no key has that id. Whether it was revoked already is read from the item as it
   * was just before this write, not from comparing times: two revokes in the same millisecond, or
   * from machines whose clocks differ, would make a comparison wrong.
   */
  async revoke(id: string, at: Date): Promise<RevokeOutcome | undefined> {
    const outcome = await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeValues: { ':at': at.toISOString() },
          ReturnValues: 'ALL_OLD',
        }),
      ),
    );
    if (!outcome.applied || !outcome.output.Attributes) return undefined;
    // The write changes revokedAt alone, and only when it was not set.
    const before = recordFromItem(outcome.output.Attributes);
    return before.revokedAt !== undefined
      ? { record: before, alreadyRevoked: true }
      : { record: { ...before, revokedAt: at.toISOString() }, alreadyRevoked: false };
  }

  async setGatewayKeyId(id: string, gatewayKeyId: string): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { id },
        UpdateExpression: 'SET gatewayKeyId = :g',
        ConditionExpression: 'attribute_exists(id)',
        ExpressionAttributeValues: { ':g': gatewayKeyId },
      }),
    );
  }

  /** Forgets the gateway key once it is deleted; a record naming another gateway key is left alone. */
  async clearGatewayKeyId(id: string, gatewayKeyId: string): Promise<void> {
    await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'REMOVE gatewayKeyId',
          ConditionExpression: 'gatewayKeyId = :g',
          ExpressionAttributeValues: { ':g': gatewayKeyId },
        }),
      ),
    );
  }
}

function recordFromItem(item: Item): ApiKeyRecord {
  const { id, hash, plan, name, createdAt, revokedAt, gatewayKeyId, releaseCanary, scope = DEFAULT_KEY_SCOPE } = item;
  // An unknown scope is malformed, not full: a key must never gain access by a typo.
  if (
    typeof id !== 'string' ||
    typeof hash !== 'string' ||
    !isPlanName(plan) ||
    typeof createdAt !== 'string' ||
    !isKeyScope(scope)
  ) {
    throw new Error('Malformed item in the API keys table');
  }
  const record: ApiKeyRecord = { id, hash, plan, scope, createdAt };
  if (typeof name === 'string') record.name = name;
  if (typeof revokedAt === 'string') record.revokedAt = revokedAt;
  if (typeof gatewayKeyId === 'string') record.gatewayKeyId = gatewayKeyId;
  if (releaseCanary === true) record.releaseCanary = true;
  const limits = item.limits as { perMinute?: unknown; perDay?: unknown } | undefined;
  const perMinute = numberOf(limits?.perMinute);
  const perDay = numberOf(limits?.perDay);
  if (perMinute !== undefined && perDay !== undefined) record.limits = { perMinute, perDay };
  return record;
}
