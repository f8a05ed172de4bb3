// The stores a test seeds, checks or drives, as the composition root makes them for every other
// path (storesFor, lib/root/stores.ts), on a test wiring: the tables' server and names, and what
// the test gives (its clock and timers, a per-attempt timeout, a table or an endpoint that fails).
// A test that needs a store on a client of its own (middleware that loses or counts calls) adds it
// to the wiring's clients (documentClient, counterClient) or says why it builds the store itself.
import type { TableNames } from '../../lib/contract/tables';
import type { OrdersRepository } from '../../lib/stores/orders';
import { seedingOrdersStore, storesFor, type Stores } from '../../lib/root/stores';
import { closeClients, type Wiring } from '../../lib/root/wiring';

export interface TestStores extends Stores {
  /** The orders store an empty table is seeded with: its putMany not counted as store growth. */
  seeding: OrdersRepository;
  /** The wiring they come from: its clients are theirs. */
  wiring: Wiring;
}

/** Stores on `on`'s server and tables, one set per wiring; `close()` frees every client they opened. */
export function storesOn(on: { endpoint: string; names: TableNames }): {
  stores(wiring?: Partial<Wiring>): TestStores;
  close(): void;
} {
  const wirings: Wiring[] = [];
  let plain: TestStores | undefined;
  const make = (given: Partial<Wiring>): TestStores => {
    const wiring: Wiring = { endpoint: on.endpoint, tables: on.names, ...given };
    wirings.push(wiring);
    return { ...storesFor(wiring), seeding: seedingOrdersStore(wiring), wiring };
  };
  return {
    stores: (wiring) => (wiring ? make(wiring) : (plain ??= make({}))),
    close: () => {
      for (const wiring of wirings.splice(0)) closeClients(wiring);
      plain = undefined;
    },
  };
}
