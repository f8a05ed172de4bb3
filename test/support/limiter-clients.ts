// Document clients for limiter tests on the embedded server: configured like the deployed limiter's
// (one attempt per call), with middleware that logs the calls, adds what real DynamoDB does and the
// embedded server does not (the item with a failed condition), and makes replies come late or
// never after the server has applied a call.
import { DynamoDBClient, GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { isConditionFailure, ON_DYNAMODB, ON_EMBEDDED_SERVER } from '../../lib/stores/conditional';
import { DynamoLimiterStore, LIMITER_CLIENT, type RateLimiter } from '../../lib/stores/rate-limiter';
import { counterClient } from '../../lib/root/wiring';
import type { TestTables } from './dynamo';

/**
 * A patient per-attempt timeout: hundreds of parallel calls queue in the one embedded server
 * process, and a timeout there would be the machine's, not the limiter's.
 */
const PATIENT_TIMEOUT_MS = 60_000;

/** The limiter's client, with a patient per-attempt timeout. */
export function limiterDocumentClient(endpoint: string): DynamoDBDocumentClient {
  return createDocumentClient(
    createDynamoClient({ endpoint, ...LIMITER_CLIENT, requestTimeoutMs: PATIENT_TIMEOUT_MS }),
  );
}

/** One call as the code under test sent it (once per call: the log sits before any retry). */
export interface LoggedCall {
  operation: string;
  table: string | undefined;
}

/** Logs every call sent through the given clients, in the order they were sent, into one log. */
export function logCalls(...docs: DynamoDBDocumentClient[]): { take(): LoggedCall[] } {
  let log: LoggedCall[] = [];
  for (const doc of docs) {
    doc.middlewareStack.add(
      (next, context) => async (args) => {
        const { TableName, RequestItems } = args.input as { TableName?: unknown; RequestItems?: object };
        // A batch names its tables as the keys of its items; one table is the call's table.
        const [table, ...others] = typeof TableName === 'string' ? [TableName] : Object.keys(RequestItems ?? {});
        log.push({
          operation: String(context.commandName).replace(/Command$/, ''),
          table: others.length === 0 ? table : undefined,
        });
        return next(args);
      },
      { step: 'initialize', name: 'testCallLog', priority: 'high' },
    );
  }
  return {
    take: () => {
      const taken = log;
      log = [];
      return taken;
    },
  };
}

/**
 * What DynamoDB does with `ReturnValuesOnConditionCheckFailure: ALL_OLD`: the failed condition
 * carries the item, or nothing when there is none. Read through `raw`, a client of its own, so the
 * call log does not see it.
 */
export function returnItemOnConditionFailure(doc: DynamoDBDocumentClient, endpoint: string): void {
  const raw = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  doc.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        const input = args.input as {
          TableName?: string;
          Key?: Record<string, unknown>;
          ReturnValuesOnConditionCheckFailure?: string;
        };
        if (isConditionFailure(error) && !error.Item && input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') {
          const Key = attributeKey(input.Key ?? {});
          const { Item } = await raw.send(
            new GetItemCommand({ TableName: input.TableName, Key, ConsistentRead: true }),
          );
          if (Item) error.Item = Item;
        }
        throw error;
      }
    },
    // Next to the server, inside any fault added before it (lateReplies): the item is the one the
    // condition met, as DynamoDB returns it, not the one stored when a late reply arrives.
    { step: 'deserialize', name: 'testReturnItemOnConditionFailure', priority: 'high' },
  );
}

/** Whether the document client has marshalled the key yet depends on middleware order: take either form. */
function attributeKey(key: Record<string, unknown>): Record<string, AttributeValue> {
  return Object.fromEntries(
    Object.entries(key).map(([name, value]) => [
      name,
      typeof value === 'string'
        ? { S: value }
        : typeof value === 'number' || typeof value === 'bigint'
          ? { N: String(value) }
          : (value as AttributeValue),
    ]),
  );
}

/** What a late-reply fault does to the call it picked. */
export type LateReply =
  /** Sent and applied by the server; the reply is lost: the caller sees the SDK's TimeoutError. */
  | { kind: 'timeout-after-write' }
  /** Never reaches the server: the caller sees the SDK's TimeoutError. */
  | { kind: 'timeout-before-write' }
  /**
   * Answered after this many ms: a write the server applied, or its refusal (a failed condition),
   * as a slow network delays any reply.
   */
  | { kind: 'late'; ms: number };

/** A call as the picker sees it before it is sent. */
export interface PickedCall {
  /** The command's name without `Command`, as in the call log. */
  operation: string;
  input: Record<string, unknown>;
}

export interface AppliedCall {
  input: Record<string, unknown>;
  /** What the server answered (only for calls it applied), before the fault hid it. */
  attributes: Record<string, unknown> | undefined;
}

/**
 * Picks calls by number (`pick(n, attempt, call)`: n counts every attempt sent through the client,
 * from 1; attempt is the SDK's attempt number of that call) and makes their replies late or lost.
 * Sits inside the SDK's retry loop, as a network fault does, so a client that retried would send
 * the picked call again. Returns the calls the server applied whose replies were lost.
 */
export function lateReplies(
  doc: DynamoDBDocumentClient,
  pick: (n: number, attempt: number, call: PickedCall) => LateReply | undefined,
): { lost: AppliedCall[] } {
  const state = { lost: [] as AppliedCall[], n: 0 };
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const header = (args.request as { headers?: Record<string, string> }).headers?.['amz-sdk-request'] ?? '';
      const call = {
        operation: String(context.commandName).replace(/Command$/, ''),
        input: args.input as Record<string, unknown>,
      };
      const fault = pick(++state.n, Number(/attempt=(\d+)/.exec(header)?.[1] ?? 1), call);
      if (fault?.kind === 'timeout-before-write') throw timeoutError();
      let result: Awaited<ReturnType<typeof next>>;
      try {
        result = await next(args);
      } catch (error) {
        // The server refused the call (e.g. a failed condition): nothing was applied, and the caller
        // hears the answer late or never.
        if (fault?.kind === 'timeout-after-write') throw timeoutError();
        if (fault?.kind === 'late') await lateBy(fault);
        throw error;
      }
      if (fault?.kind === 'late') await lateBy(fault);
      if (fault?.kind === 'timeout-after-write') {
        const output = result.output as { Attributes?: Record<string, unknown> };
        state.lost.push({ input: args.input as Record<string, unknown>, attributes: output.Attributes });
        throw timeoutError();
      }
      return result;
    },
    // Outside the deserializer, to see the answer; inside the retry step, as the network is.
    { step: 'deserialize', name: 'testLateReplies', priority: 'high' },
  );
  return state;
}

async function lateBy(fault: { ms: number }): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, fault.ms));
}

/** As the SDK's node HTTP handler reports a request that outlived its requestTimeout. */
function timeoutError(): Error {
  return Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
}

export type ServerBehaviour = 'the embedded server' | 'DynamoDB';
export const SERVER_BEHAVIOURS: ServerBehaviour[] = ['the embedded server', 'DynamoDB'];

/**
 * The root's limiter on a wiring of its own, its client (patient) logged: on the embedded server as
 * it is, or with failed conditions answered as DynamoDB answers them and the limiter told so (as
 * deployed).
 */
export function limiterOn(
  behaviour: ServerBehaviour,
  tables: TestTables,
  clock: () => number,
): { limiter: RateLimiter; doc: DynamoDBDocumentClient; calls: ReturnType<typeof logCalls> } {
  const { limiter, wiring } = tables.stores({
    now: clock,
    requestTimeoutMs: PATIENT_TIMEOUT_MS,
    conditionFailures: behaviour === 'DynamoDB' ? ON_DYNAMODB : ON_EMBEDDED_SERVER,
  });
  const doc = counterClient(wiring);
  const calls = logCalls(doc);
  if (behaviour === 'DynamoDB') returnItemOnConditionFailure(doc, tables.endpoint);
  return { limiter, doc, calls };
}

/**
 * The DynamoDB limiter store alone, on its own client, for either server behaviour: built by hand on
 * purpose, for its contract (the root hands it out only inside the RateLimiter).
 */
export function limiterStoreOn(
  behaviour: ServerBehaviour,
  endpoint: string,
  table: string,
): { store: DynamoLimiterStore; doc: DynamoDBDocumentClient } {
  const doc = limiterDocumentClient(endpoint);
  if (behaviour === 'DynamoDB') returnItemOnConditionFailure(doc, endpoint);
  return {
    store: new DynamoLimiterStore(doc, table, behaviour === 'DynamoDB' ? ON_DYNAMODB : ON_EMBEDDED_SERVER),
    doc,
  };
}
