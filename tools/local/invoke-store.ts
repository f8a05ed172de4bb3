import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';

// The local gateway runs many invocations at once in one process, as Lambda Managed Instances do.
// There the runtime gives each invocation its own context through `awslambda.InvokeStore`, and
// Powertools keeps its per-invocation state (Lambda context, appended keys, metrics) in it
// whenever AWS_LAMBDA_MAX_CONCURRENCY is set. Doing the same here gives every local invocation
// its own logger context, while deployed functions (one invocation at a time, no such variable)
// run exactly as before.

type StoreContext = Record<string | symbol, unknown>;

/** The protected keys the runtime sets; Symbol.for makes them the same symbols as the runtime's. */
const REQUEST_ID = Symbol.for('_AWS_LAMBDA_REQUEST_ID');
const PROTECTED = new Set<string | symbol>([
  REQUEST_ID,
  Symbol.for('_AWS_LAMBDA_X_RAY_TRACE_ID'),
  Symbol.for('_AWS_LAMBDA_TENANT_ID'),
  Symbol.for('_AWS_LAMBDA_TRACEPARENT'),
  Symbol.for('_AWS_LAMBDA_TRACESTATE'),
  Symbol.for('_AWS_LAMBDA_BAGGAGE'),
]);

/** The members of the runtime's multi-concurrency InvokeStore that libraries call. */
class LocalInvokeStore {
  private readonly storage = new AsyncLocalStorage<StoreContext>();

  getContext(): StoreContext | undefined {
    return this.storage.getStore();
  }

  hasContext(): boolean {
    return this.storage.getStore() !== undefined;
  }

  get<T = unknown>(key: string | symbol): T | undefined {
    return this.storage.getStore()?.[key] as T | undefined;
  }

  set(key: string | symbol, value: unknown): void {
    if (PROTECTED.has(key)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    const store = this.storage.getStore();
    if (!store) throw new Error('No context available');
    store[key] = value;
  }

  run<T>(context: StoreContext, fn: () => T): T {
    return this.storage.run(context, fn);
  }

  getRequestId(): string {
    return this.get<string>(REQUEST_ID) ?? '-';
  }

  // Local invocations carry no trace, tenant or baggage.
  getXRayTraceId(): undefined {
    return undefined;
  }
  getTenantId(): undefined {
    return undefined;
  }
  getTraceparent(): undefined {
    return undefined;
  }
  getTracestate(): undefined {
    return undefined;
  }
  getBaggage(): undefined {
    return undefined;
  }
}

const store = new LocalInvokeStore();

/**
 * Installs the store and turns on per-invocation state in Powertools. It replaces any store
 * already there: the AWS SDK creates a single-invocation one on its first request.
 */
export function installInvokeStore(): LocalInvokeStore {
  const scope = globalThis as { awslambda?: { InvokeStore?: unknown } };
  (scope.awslambda ??= {}).InvokeStore = store;
  // Read by Powertools on every access: set only once the store it will look for exists.
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '1000';
  return store;
}

/** Runs one invocation, and everything it starts (a streamed body included), in its own context. */
export function inInvocation<T>(context: Pick<Context, 'awsRequestId'>, fn: () => T): T {
  return installInvokeStore().run({ [REQUEST_ID]: context.awsRequestId }, fn);
}
