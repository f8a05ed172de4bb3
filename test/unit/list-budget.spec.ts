import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { FUNCTIONS, STREAMING_INTEGRATION_HEADROOM_SECONDS } from '../../lib/contract/deployment';
import {
  budgetTable,
  ceiling,
  clientWireSeconds,
  LIST_CEILING,
  listingTime,
  LIST_SETTINGS,
  listSettings,
  MEASURED,
  MIN_CLIENT_BYTES_PER_SECOND,
  slowestWholeClient,
  wireSeconds,
} from '../../infra/list-budget';
import { STREAMING_LIMITS } from '../../lib/contract/streaming-limits';

const MiB = 1024 * 1024;

test('the wire: 6 MB free, then 2 MB/s', () => {
  expect(wireSeconds(5 * MiB)).toBe(0);
  expect(wireSeconds(6 * MiB)).toBe(0);
  expect(wireSeconds(26 * MiB)).toBe(10);
});

test('the ceiling is the least of response size, bandwidth and CPU in the time allowed', () => {
  const figures = { bytesPerOrder: 100, ordersPerCpuSecond: 10_000 };
  // CPU: 10,000 orders/s × 60 s on one vCPU; bandwidth would allow (6 + 2 × 60) MiB / 100 B.
  expect(ceiling(figures, 1769, 60)).toMatchObject({ orders: 600_000, limitedBy: 'CPU', seconds: 60 });
  // Half the memory is half a vCPU, so half the orders.
  expect(ceiling(figures, 1769 / 2, 60)).toMatchObject({ orders: 300_000, limitedBy: 'CPU' });
  // More than one vCPU buys nothing: Node serialises on one thread.
  expect(ceiling(figures, 1769 * 4, 60).orders).toBe(600_000);
  const fast = { bytesPerOrder: 100, ordersPerCpuSecond: 1_000_000 };
  expect(ceiling(fast, 1769, 60)).toMatchObject({ orders: Math.floor((126 * MiB) / 100), limitedBy: 'bandwidth' });
  expect(ceiling(fast, 1769, 600)).toMatchObject({ orders: Math.floor((200 * MiB) / 100), limitedBy: 'response size' });
  expect(ceiling(fast, 1769, 600).seconds).toBeCloseTo(97, 5);
});

test("a listing's time is the slower of its two clocks, and says which", () => {
  const figures = { bytesPerOrder: 100, ordersPerCpuSecond: 100_000 };
  // 1M orders: 10 s of CPU at one vCPU; (100 MB - 6 MiB) / 2 MiB/s on the wire.
  const wire = (1_000_000 * 100 - 6 * MiB) / (2 * MiB);
  expect(listingTime(figures, 1769, 1_000_000)).toEqual({
    cpuSeconds: 10,
    wireSeconds: wire,
    seconds: wire,
    boundBy: 'wire',
  });
  // A tenth of the vCPU: the CPU's 100 s outlast the wire's 45.
  const slow = listingTime(figures, 1769 / 10, 1_000_000);
  expect(slow.boundBy).toBe('CPU');
  expect(slow.seconds).toBeCloseTo(100, 6);
});

test('a client slower than the cap sets the wire time; a faster one gets the cap', () => {
  expect(clientWireSeconds(100 * MiB, 0.5 * MiB)).toBe(200);
  expect(clientWireSeconds(26 * MiB, 100 * MiB)).toBe(10);
});

test('settings: one vCPU, time for the largest compressed response to the slowest client or the CPU, within the 15-minute stream', () => {
  const figures = {
    plain: { bytesPerOrder: 130, ordersPerCpuSecond: 40_000 },
    compressed: { bytesPerOrder: 40, ordersPerCpuSecond: 40_000 },
    source: 'test',
  };
  // 200 MiB / 40 B = 5,242,880 orders; CPU needs 131 s, × 1.5 = 197 s; a 2 MiB/s client 97 s → 210 s.
  expect(listSettings(figures, 2 * MiB)).toEqual({ memoryMb: STREAMING_LIMITS.memoryMbPerVcpu, timeoutSeconds: 210 });
  // A client at 0.5 MiB/s needs 400 s for 200 MiB, more than the CPU: 420 s.
  expect(listSettings(figures, 0.5 * MiB)).toEqual({ memoryMb: STREAMING_LIMITS.memoryMbPerVcpu, timeoutSeconds: 420 });
  // No timeout serves a client that needs more than the stream may last: refused, not capped.
  expect(() => listSettings(figures, 0.2 * MiB)).toThrow(/minimum client bandwidth/);
  const slow = listSettings({
    plain: { bytesPerOrder: 130, ordersPerCpuSecond: 1_000 },
    compressed: { bytesPerOrder: 40, ordersPerCpuSecond: 1_000 },
    source: 'test',
  });
  expect(slow.timeoutSeconds).toBe(STREAMING_LIMITS.maxIntegrationSeconds - STREAMING_INTEGRATION_HEADROOM_SECONDS);
});

test('at the deployed timeout a client at the documented minimum bandwidth gets the largest listing whole', () => {
  expect(slowestWholeClient(LIST_SETTINGS)).toBeLessThanOrEqual(MIN_CLIENT_BYTES_PER_SECOND);
  expect(LIST_CEILING).toEqual({
    orders: ceiling(MEASURED.compressed, LIST_SETTINGS.memoryMb, LIST_SETTINGS.timeoutSeconds).orders,
    bytes: STREAMING_LIMITS.maxResponseBytes,
  });
});

test('list-orders is deployed with the settings the measured figures give', () => {
  expect(LIST_SETTINGS).toEqual(listSettings(MEASURED));
  expect(FUNCTIONS['list-orders']).toMatchObject({
    memoryMb: LIST_SETTINGS.memoryMb,
    timeoutSeconds: LIST_SETTINGS.timeoutSeconds,
  });
  expect(LIST_SETTINGS.timeoutSeconds + STREAMING_INTEGRATION_HEADROOM_SECONDS).toBeLessThanOrEqual(
    STREAMING_LIMITS.maxIntegrationSeconds,
  );
});

test('at those settings one compressed response carries at least 5 million orders', () => {
  expect(
    ceiling(MEASURED.compressed, LIST_SETTINGS.memoryMb, LIST_SETTINGS.timeoutSeconds).orders,
  ).toBeGreaterThanOrEqual(5_000_000);
});

test('docs/design.md shows the arithmetic of the deployed settings', () => {
  const design = readFileSync(path.join(__dirname, '..', '..', 'docs', 'design.md'), 'utf8');
  expect(design).toContain(budgetTable(MEASURED, LIST_SETTINGS));
});
