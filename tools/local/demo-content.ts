// The local stack's demo data, derived from fixed seeds so the README's curl examples work on every
// start: the orders, a pet for each, and one key per plan. `npm start` writes them into an empty
// store (tools/local/demo-data.ts); keys for deployed stages come from the CSPRNG instead.

import { createHash } from 'node:crypto';
import type { Order } from '../../lib/contract/order';
import type { Pet, PetStatus } from '../../lib/contract/pet';
import type { Limits, PlanName } from '../../lib/contract/plans';
import { generateApiKey } from '../../lib/core/access/key-format';

/** Demo orders in every state, with the int64 edge cases of decisions.md. Only shipped ones are complete. */
export const DEMO_ORDERS: readonly Order[] = [
  { id: '1', petId: '101', quantity: 1, shipDate: '2026-11-20T10:00:00.000Z', complete: false, status: 'pending' },
  { id: '2', petId: '102', quantity: 2, shipDate: '2026-11-21T09:30:00.000Z', complete: false, status: 'pending' },
  { id: '3', petId: '103', quantity: 1, shipDate: '2026-11-18T14:00:00.000Z', complete: true, status: 'shipped' },
  { id: '4', petId: '104', quantity: 5, complete: false, status: 'cancelled' },
  { id: '9007199254740992', petId: '9007199254740993', quantity: 1, status: 'pending' },
  { id: '9007199254740993', petId: '9007199254740992', quantity: 1, status: 'pending' },
  {
    id: '9223372036854775807',
    petId: '9223372036854775806',
    quantity: 3,
    shipDate: '2026-12-01T00:00:00.000Z',
    complete: false,
    status: 'pending',
  },
];

const DEMO_PET_NAMES = ['Rex', 'Misty', 'Nibbles', 'Goldie', 'Biscuit', 'Pepper', 'Max'];
const DEMO_PET_STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

/** One pet for every demo order's petId (the int64 edge cases included), for GET /pets/{petId}. */
export const DEMO_PETS: readonly Pet[] = [...new Set(DEMO_ORDERS.flatMap((order) => order.petId ?? []))].map(
  (id, i) => ({
    id,
    category: { id: String((i % 2) + 1), name: i % 2 === 0 ? 'Dogs' : 'Cats' },
    name: DEMO_PET_NAMES[i % DEMO_PET_NAMES.length] ?? `Pet ${id}`,
    photoUrls: [`https://example.com/pets/${id}.jpg`],
    tags: [{ id: '1', name: 'demo' }],
    status: DEMO_PET_STATUSES[i % DEMO_PET_STATUSES.length] ?? 'available',
  }),
);

/** The plan's demo key: its random bytes are SHA-256 of a seed naming the plan. */
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

/** The demo enterprise key's custom limits; the other demo keys have their plan's. */
export function demoLimits(plan: PlanName): Limits | undefined {
  return plan === 'enterprise' ? { perMinute: 5_000, perDay: 1_000_000 } : undefined;
}
