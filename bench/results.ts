import type { BundleFigures } from './bundles';
import type { OverheadFigures } from './handler-overhead';
import type { ListFigures, MemoryMode } from './list-orders';
import type { LoadFigures } from './load';
import type { Machine } from './machine';
import type { InitFigures } from './module-init';
import type { RoundTrips } from './round-trips';

export const AIMS = {
  initRatio: 1.15,
  handlerRatio: 1.1,
  /** listOrders peak memory growth from 20k to 200k orders. */
  memoryGrowth: 0.2,
} as const;

export interface MemoryGrowth {
  mode: MemoryMode;
  from: number;
  to: number;
  rss: number;
  heap: number;
  holds: boolean;
}

export interface BenchResults {
  mode: 'full' | 'quick';
  startedAt: string;
  durationS: number;
  machine: Machine;
  loadAverageAtEnd: number;
  bundles: Omit<BundleFigures, 'file'>[];
  moduleInit: InitFigures[];
  handlerOverhead: OverheadFigures;
  roundTrips: RoundTrips[];
  listOrders: ListFigures[];
  listMemoryGrowth: MemoryGrowth[];
  load: LoadFigures[];
  notes: string[];
}

/**
 * The handler's peak growth from 20k orders (or the smallest size above it) to the largest size,
 * in each memory mode.
 */
export function memoryGrowth(list: readonly ListFigures[]): MemoryGrowth[] {
  const modes = [...new Set(list.map((f) => f.mode))];
  return modes.flatMap((mode) => {
    const handler = list.filter((f) => f.variant === 'handler' && f.mode === mode && !f.failed).sort((a, b) => a.size - b.size);
    const from = handler.find((f) => f.size >= 20_000);
    const to = handler[handler.length - 1];
    if (!from || !to || to.size <= from.size) return [];
    const rss = to.peakRssMB / from.peakRssMB - 1;
    const heap = to.peakHeapMB / from.peakHeapMB - 1;
    return [{ mode, from: from.size, to: to.size, rss, heap, holds: rss < AIMS.memoryGrowth && heap < AIMS.memoryGrowth }];
  });
}
