import { AsyncLocalStorage } from 'node:async_hooks';
import { InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';

// The local gateway runs many invocations at once in one process, as Lambda Managed Instances do.
// There the runtime gives each invocation its own context through `awslambda.InvokeStore`, and
// Powertools keeps its per-invocation state (Lambda context, appended keys, metrics) in it
// whenever AWS_LAMBDA_MAX_CONCURRENCY is set. Doing the same here gives every local invocation
// its own logger context, while deployed functions (one invocation at a time, no such variable)
// run exactly as before. The package's own multi-invocation store cannot be used: its factory
// returns whichever store exists already, and the AWS SDK makes a single-invocation one first.

type StoreContext = Record<string | symbol, unknown>;

/** The runtime's multi-concurrency store: the package's base (protected keys, getters) on AsyncLocalStorage. */
class LocalInvokeStore extends InvokeStoreBase {
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
    if (this.isProtectedKey(key)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    const store = this.storage.getStore();
    if (!store) throw new Error('No context available');
    store[key] = value;
  }

  run<T>(context: StoreContext, fn: () => T): T {
    return this.storage.run(context, fn);
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
  return installInvokeStore().run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, fn);
}
