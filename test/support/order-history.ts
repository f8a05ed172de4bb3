import type { OrderStatus } from '../../lib/contract/order';

/**
 * One atomic step on one order, with what the caller was told. An import of several orders is one
 * step per order: each is its own conditional put.
 */
export type OrderEvent =
  | { kind: 'cancel'; id: string; observed: 204 | 404 | 409 }
  /** `already`: the admin command read it shipped and wrote nothing. */
  | { kind: 'ship'; id: string; observed: 'shipped' | 'already' | 'missing' | 'cancelled' }
  | { kind: 'import'; id: string; status: OrderStatus; observed: 'created' | 'skipped' };

/** An event and when its operation ran, as ticks of one counter: start before end. */
export interface TimedEvent {
  event: OrderEvent;
  start: number;
  end: number;
}

export type TableState = ReadonlyMap<string, OrderStatus>;

/** The sequential model of decisions.md: the state after the event, or undefined when it could not have answered so. */
export function step(state: TableState, event: OrderEvent): TableState | undefined {
  const current = state.get(event.id);
  const set = (status: OrderStatus) => new Map(state).set(event.id, status);
  switch (event.kind) {
    case 'cancel': {
      const answer = current === undefined ? 404 : current === 'shipped' ? 409 : 204;
      if (answer !== event.observed) return undefined;
      return current === 'pending' ? set('cancelled') : state;
    }
    case 'ship': {
      if (current === undefined) return event.observed === 'missing' ? state : undefined;
      if (current === 'cancelled') return event.observed === 'cancelled' ? state : undefined;
      if (current === 'shipped')
        return event.observed === 'shipped' || event.observed === 'already' ? state : undefined;
      return event.observed === 'shipped' ? set('shipped') : undefined;
    }
    case 'import':
      if (current === undefined) return event.observed === 'created' ? set(event.status) : undefined;
      return event.observed === 'skipped' ? state : undefined;
  }
}

const keyOf = (state: TableState) => [...state].sort(([a], [b]) => a.localeCompare(b)).join(';');

/**
 * An order of the events that respects real time (an operation that ended before another began
 * comes first), reproduces every answer under the model, and ends in the state the table holds;
 * undefined when there is none, i.e. some interleaving broke the rules.
 */
export function linearize(
  initial: TableState,
  history: readonly TimedEvent[],
  final: TableState,
): OrderEvent[] | undefined {
  const dead = new Set<string>();
  const search = (state: TableState, left: readonly TimedEvent[]): OrderEvent[] | undefined => {
    if (left.length === 0) return keyOf(state) === keyOf(final) ? [] : undefined;
    const memo = `${left.map((e) => history.indexOf(e)).join(',')}|${keyOf(state)}`;
    if (dead.has(memo)) return undefined;
    for (const candidate of left) {
      if (left.some((other) => other.end < candidate.start)) continue;
      const next = step(state, candidate.event);
      if (!next) continue;
      const rest = search(
        next,
        left.filter((e) => e !== candidate),
      );
      if (rest) return [candidate.event, ...rest];
    }
    dead.add(memo);
    return undefined;
  };
  return search(initial, history);
}
