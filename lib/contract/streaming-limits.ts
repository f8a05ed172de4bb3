// What AWS documents of a streamed Lambda response behind API Gateway, declared once: read by the
// listing handler (which refuses a listing that could not fit) and by infra/list-budget.ts (which
// sizes list-orders from it). Here, in lib/, so a function's bundle never carries the budget's
// measured figures (bench/results.json) for the sake of one limit.

const MiB = 1024 * 1024;

/** Lambda response streaming and API Gateway, as documented. */
export const STREAMING_LIMITS = {
  /** The first bytes of a streamed response go out at full speed... */
  fullSpeedBytes: 6 * MiB,
  /** ...the rest at most this fast. */
  cappedBytesPerSecond: 2 * MiB,
  /** A streamed response is cut at this size. */
  maxResponseBytes: 200 * MiB,
  /**
   * API Gateway's longest stream (its own cap, 2 MB/s after the first 10 MB, is looser than
   * Lambda's above; its idle timeout, 5 minutes on a regional endpoint, never applies to a
   * listing, which sends every Scan page as it comes).
   */
  maxIntegrationSeconds: 15 * 60,
  /** Lambda gives a function one full vCPU at this much memory (and CPU in proportion below it). */
  memoryMbPerVcpu: 1_769,
} as const;
