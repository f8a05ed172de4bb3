import { createHash } from 'node:crypto';
import { generateApiKey } from '../../lib/keys/format';
import type { Order } from '../../lib/orders/order';
import type { Limits, PlanName } from '../../lib/limits/plans';

/** Demo orders in every state, with the int64 edge cases of decisions.md. */
export const DEMO_ORDERS: readonly Order[] = [
  { id: '1', petId: '101', quantity: 1, shipDate: '2026-11-20T10:00:00.000Z', complete: false, status: 'pending' },
  { id: '2', petId: '102', quantity: 2, shipDate: '2026-11-21T09:30:00.000Z', complete: false, status: 'pending' },
  { id: '3', petId: '103', quantity: 1, shipDate: '2026-11-18T14:00:00.000Z', complete: true, status: 'shipped' },
  { id: '4', petId: '104', quantity: 5, complete: false, status: 'cancelled' },
  { id: '9007199254740992', petId: '9007199254740993', quantity: 1, status: 'pending' },
  { id: '9007199254740993', petId: '9007199254740992', quantity: 1, status: 'pending' },
  { id: '9223372036854775807', petId: '9223372036854775806', quantity: 3, shipDate: '2026-12-01T00:00:00.000Z', complete: false, status: 'pending' },
];

export const DEMO_ENTERPRISE_LIMITS: Limits = { perMinute: 5_000, perDay: 1_000_000 };

/**
 * Demo keys are derived from a fixed seed, so the README's curl examples work on every local
 * start. They exist only in the local stack; keys for deployed stages come from the CSPRNG.
 */
export function demoKey(plan: PlanName): string {
  let counter = 0;
  return generateApiKey((size) => {
    const out = Buffer.alloc(size);
    for (let offset = 0; offset < size; offset += 32) {
      createHash('sha256').update(`store-orders-local-demo:${plan}:${counter++}`).digest().copy(out, offset);
    }
    return out;
  });
}
