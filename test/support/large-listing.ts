// One large orders table for the listing specs of a runner that only read it: seeding costs about
// a CPU-second per thousand orders on the embedded server, so the table is written once per jest
// file (on first use) and shared, rather than once per spec, and closed after the file's last user.
import type { Order } from '../../lib/contract/order';
import { startLocalStack, type LocalStack } from './local-stack';

/** The int64 extremes, 2^53 + 1 and zero: shipped orders with every field, exact to the digit. */
export const EXTREME_IDS = ['9223372036854775807', '-9223372036854775808', '9007199254740993', '0'] as const;
/** Orders in the table: three of the deployed Scan's 1,000-order pages. */
export const LARGE_LISTING_COUNT = 3_000;

function largeListingOrders(): Order[] {
  return [
    ...EXTREME_IDS.map((id, i) => ({
      id,
      petId: '9223372036854775806',
      quantity: i,
      shipDate: '2026-11-20T10:00:00.000Z',
      complete: true,
      status: 'shipped' as const,
    })),
    ...Array.from({ length: LARGE_LISTING_COUNT - EXTREME_IDS.length }, (_, i) => ({
      id: String(4_611_686_018_427_387_904n + BigInt(i) * 7919n),
      petId: String(i),
      quantity: i % 7,
      status: (['pending', 'shipped', 'cancelled'] as const)[i % 3] ?? 'pending',
    })),
  ];
}

let shared: Promise<LocalStack> | undefined;

/**
 * A local stack whose orders table holds LARGE_LISTING_COUNT orders, made on the first call of the
 * jest file. Its users must not change the orders; each makes its own keys.
 */
function largeListingStack(): Promise<LocalStack> {
  shared ??= (async () => {
    const stack = await startLocalStack();
    await stack.app.orders.putMany(largeListingOrders());
    return stack;
  })();
  return shared;
}

/** The limits of each reader's own key (an enterprise key's are custom). */
export const LARGE_LISTING_KEY_LIMITS = { perMinute: 1000, perDay: 10_000 };

/**
 * The shared stack and a key of the caller's own: each spec reads the rate-limit headers of its
 * first request, so no two share a key.
 */
export async function largeListingReader(): Promise<{ stack: LocalStack; key: string }> {
  const stack = await largeListingStack();
  const { key } = await stack.newKey('enterprise', LARGE_LISTING_KEY_LIMITS);
  return { stack, key };
}

async function closeLargeListingStack(): Promise<void> {
  const made = shared;
  shared = undefined;
  if (made) await (await made).close();
}

let users = 0;

/**
 * Called at the top level of each spec that reads the shared stack: closes it after the jest file's
 * last such spec. A file registers all of its specs' hooks before any runs, so in a runner the count
 * covers every user, and a spec run alone (`npx jest test/http/streaming.spec.ts`) closes it itself.
 */
export function closeLargeListingAfterLastUser(): void {
  users += 1;
  afterAll(async () => {
    users -= 1;
    if (users === 0) await closeLargeListingStack();
  });
}
