// The index-lag canary's rules (docs/design.md#the-index-lag-canary): what a run records of its
// probe, when the indexes lagged beyond the budget and which changes a sweep must re-stamp once they
// are back, and how far a walk holds its watermark back by what the canary measured. Pure: the
// canary (lib/edge/index-canary-handler.ts), the v2 listing and the sync watch apply them; the
// record is kept on the sentinel item (lib/stores/index-canary.ts).

/** What the rules need of the timing: the budget and settling time, and the canary's own. */
export interface LagTiming {
  /** The index lag the settling time allows for (SYNC_TIMING.indexLagMs): the budget. */
  indexLagMs: number;
  /** How far a walk's watermark stands behind its start (lib/contract/sync.ts settleMs). */
  settleMs: number;
  clockErrorMs: number;
  /** Between two runs (INDEX_CANARY.periodSeconds). */
  periodMs: number;
  /** How late the canary's writes may be and still count as on time (INDEX_CANARY.lateAllowanceMs). */
  lateAllowanceMs: number;
  /** How long a run reads its probe back (INDEX_CANARY.readBackMs). */
  readBackMs: number;
}

/** One run's probe read back through every index. */
export interface LagMeasurement {
  /** The probe's stamp: taken before its write was sent (AWS's clock), epoch ms. */
  probeMs: number;
  /**
   * How long after `probeMs` the slowest index showed the probe: an upper bound, counted from
   * before the write was sent to the answer of the read that saw it. Unseen: at least this.
   */
  lagMs: number;
  /** Whether every index showed it within the read-back time (or a later probe bounded it since). */
  seen: boolean;
}

/** A lag beyond the budget, from the last probe within it: its changes are swept once it is back. */
export interface LagEpisode {
  /** The probe before the first over the budget: changes that landed after it may have been hidden. */
  fromMs: number;
  /** The first probe back within the budget; absent while the lag lasts. */
  toMs?: number;
  /** Sweeps asked for since it ended: one when it ends, a second a run later. */
  sweeps?: number;
}

/** What the canary keeps on the sentinel: its latest probe, its last measurements, an episode to repair. */
export interface CanaryRecord {
  /** The latest probe written, measured or not yet. */
  probeMs: number;
  /** Oldest first, at most `kept` of them. */
  measurements: LagMeasurement[];
  episode?: LagEpisode;
}

/** The stamps a sweep re-stamps: every order whose updatedAt is in [fromMs, toMs]. */
export interface RepairWindow {
  fromMs: number;
  toMs: number;
  /** Which sweep of the episode this is (1 when it ends, 2 a run later). */
  sweep: number;
}

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function measurementOf(value: unknown): LagMeasurement | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { probeMs, lagMs, seen } = value as Record<string, unknown>;
  if (!isFiniteNumber(probeMs) || !isFiniteNumber(lagMs) || typeof seen !== 'boolean') return undefined;
  return { probeMs, lagMs, seen };
}

/** A record read back (parsed JSON); undefined for anything else, which readers take as no record. */
export function canaryRecordOf(value: unknown): CanaryRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { probeMs, measurements, episode } = value as Record<string, unknown>;
  if (!isFiniteNumber(probeMs) || !Array.isArray(measurements)) return undefined;
  const read = measurements.map(measurementOf);
  if (read.some((m) => m === undefined)) return undefined;
  const record: CanaryRecord = { probeMs, measurements: read as LagMeasurement[] };
  if (typeof episode === 'object' && episode !== null) {
    const { fromMs, toMs, sweeps } = episode as Record<string, unknown>;
    if (!isFiniteNumber(fromMs)) return undefined;
    record.episode = {
      fromMs,
      ...(isFiniteNumber(toMs) ? { toMs } : {}),
      ...(isFiniteNumber(sweeps) ? { sweeps } : {}),
    };
  }
  return record;
}

/** A repair window read back from the sentinel's stream record; undefined for anything else. */
export function repairWindowOf(value: unknown): RepairWindow | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { fromMs, toMs, sweep } = value as Record<string, unknown>;
  if (!isFiniteNumber(fromMs) || !isFiniteNumber(toMs) || !isFiniteNumber(sweep) || fromMs > toMs) return undefined;
  return { fromMs, toMs, sweep };
}

/** Whether a measurement breaks the budget: unseen, or seen later than it allows. */
export const overBudget = (m: LagMeasurement, t: Pick<LagTiming, 'indexLagMs'>): boolean =>
  !m.seen || m.lagMs > t.indexLagMs;

/**
 * The stamps of the changes that can have landed during an episode: from a settling time before its
 * last probe within the budget (a change may land up to the landing allowance after its stamp; one
 * later still is the sync watch's own re-stamp) to the clock allowance after its first probe back
 * (a stamp further ahead is one no walk vouches for before the index shows it).
 */
export function episodeWindow(episode: Required<Pick<LagEpisode, 'fromMs' | 'toMs'>>, t: LagTiming, sweep: number) {
  return { fromMs: episode.fromMs - t.settleMs, toMs: episode.toMs + t.clockErrorMs, sweep };
}

/**
 * The record a run writes with its probe. An episode that ended on the previous run gets its second
 * sweep now: a change that landed just before the probe back within the budget may have still been
 * on its way to the index when the first sweep read it, and a period later it is there.
 */
export function withProbe(
  record: CanaryRecord | undefined,
  probeMs: number,
  t: LagTiming,
): { record: CanaryRecord; repair?: RepairWindow } {
  const measurements = record?.measurements ?? [];
  const episode = record?.episode;
  if (episode?.toMs !== undefined && (episode.sweeps ?? 0) >= 1) {
    return { record: { probeMs, measurements }, repair: episodeWindow({ ...episode, toMs: episode.toMs }, t, 2) };
  }
  return { record: { probeMs, measurements, ...(episode ? { episode } : {}) } };
}

/**
 * The record once the run's probe is measured (or given up on). A later probe seen bounds an earlier
 * unseen one: an index shows an item's changes in order, so the earlier one was there by then. A
 * measurement over the budget opens an episode from the probe before it (or extends the one open,
 * or reopens one awaiting its second sweep, from its own start); the first back within the budget
 * ends it and asks for its first sweep.
 */
export function withMeasurement(
  record: CanaryRecord,
  measurement: LagMeasurement,
  t: LagTiming,
  kept: number,
): { record: CanaryRecord; repair?: RepairWindow } {
  const seenAt = measurement.probeMs + measurement.lagMs;
  const earlier = record.measurements.map((m) =>
    !m.seen && measurement.seen ? { probeMs: m.probeMs, lagMs: Math.max(m.lagMs, seenAt - m.probeMs), seen: true } : m,
  );
  const previous = earlier.at(-1);
  const measurements = [...earlier, measurement].slice(-kept);
  const episode = record.episode;
  if (overBudget(measurement, t)) {
    const fromMs = episode?.fromMs ?? previous?.probeMs ?? measurement.probeMs - t.periodMs;
    return { record: { probeMs: record.probeMs, measurements, episode: { fromMs } } };
  }
  if (episode !== undefined && episode.toMs === undefined) {
    const ended = { fromMs: episode.fromMs, toMs: measurement.probeMs, sweeps: 1 };
    return { record: { probeMs: record.probeMs, measurements, episode: ended }, repair: episodeWindow(ended, t, 1) };
  }
  return { record: { probeMs: record.probeMs, measurements, ...(episode ? { episode } : {}) } };
}

/**
 * How far a walk holds its watermark back beyond the settling time, or that it can vouch for
 * nothing past the canary's last probe seen:
 * - `held`: the canary is running and saw its probes. Each measurement bounds the lag of the
 *   changes that landed within a period of its probe; it holds back every walk that started before
 *   that period, its lateness and its own lag are over, by what it exceeds the budget. A probe still
 *   being read back holds walks back by how long it has been unseen beyond the budget.
 * - `unvouched`: no probe seen yet, the last probe unseen within the read-back time, or the canary
 *   stopped (no probe for a period and its lateness, or none finished within the read-back time and
 *   its lateness). The watermark then stays where the last probe seen leaves it.
 */
export type LagHold = { kind: 'held'; holdMs: number } | { kind: 'unvouched'; vouchedUntilMs?: number };

export function lagHold(
  record: CanaryRecord | undefined,
  walk: { startedMs: number; nowMs: number },
  t: LagTiming,
): LagHold {
  const lastSeen = record?.measurements.filter((m) => m.seen).at(-1);
  const latest = record?.measurements.at(-1);
  if (record === undefined || lastSeen === undefined || latest === undefined) return { kind: 'unvouched' };
  const unvouched: LagHold = { kind: 'unvouched', vouchedUntilMs: lastSeen.probeMs };
  const pending = record.probeMs > latest.probeMs;
  if (walk.nowMs > record.probeMs + t.periodMs + t.lateAllowanceMs) return unvouched;
  if (pending && walk.nowMs > record.probeMs + t.readBackMs + t.lateAllowanceMs) return unvouched;
  if (!latest.seen) return unvouched;
  let holdMs = pending ? Math.max(0, walk.nowMs - record.probeMs - t.indexLagMs) : 0;
  for (const m of record.measurements) {
    if (m.probeMs + t.periodMs + t.lateAllowanceMs + m.lagMs >= walk.startedMs)
      holdMs = Math.max(holdMs, m.lagMs - t.indexLagMs);
  }
  return { kind: 'held', holdMs };
}
