import { extraOverBare } from './bundles';
import { HEAP_CAP_MB, type ListFigures, type MemoryMode } from './list-orders';
import { AIMS, type BenchResults } from './results';

type Row = [figure: string, subject: string, measured: string, against: string, result: string];

const n = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const kB = (bytes: number) => `${n(bytes / 1024, 1)} kB`;
const pct = (ratio: number) => `${ratio >= 0 ? '+' : ''}${n(ratio * 100, 1)}%`;
const verdict = (ok: boolean, aim: string) => `${ok ? 'meets' : 'misses'} ${aim}`;
const size = (orders: number) => (orders >= 1000 ? `${orders / 1000}k` : String(orders));

function bundleRows(r: BenchResults): Row[] {
  const bare = r.bundles.find((b) => b.name === 'bare');
  const rows: Row[] = [];
  for (const b of r.bundles) {
    rows.push(['bundle size', b.name, `${kB(b.bytes)} (gzip ${kB(b.gzipBytes)})`, b.name === 'bare' ? '' : `bare ${kB(bare?.bytes ?? 0)}`, b.name === 'bare' ? 'baseline' : pct(b.bytes / (bare?.bytes ?? 1) - 1)]);
  }
  for (const init of r.moduleInit.filter((i) => i.name !== 'bare')) {
    const flags = init.nodeFlags.join(' ');
    const baseline = r.moduleInit.find((i) => i.name === 'bare' && i.nodeFlags.join(' ') === flags);
    rows.push([
      `module init${flags ? ` (${flags}, as deployed)` : ''}`,
      init.name,
      `${n(init.medianMs, 1)} ms wall, ${n(init.medianCpuMs, 1)} ms CPU (median of ${init.runs})`,
      `bare ${n(baseline?.medianMs ?? 0, 1)} ms wall, ${n(baseline?.medianCpuMs ?? 0, 1)} ms CPU`,
      `×${n(init.ratio, 2)} wall ${verdict(init.ratio <= AIMS.initRatio, `≤ ${AIMS.initRatio}`)}; ×${n(init.cpuRatio, 2)} CPU`,
    ]);
  }
  return rows;
}

function overheadRows(r: BenchResults): Row[] {
  const m = r.handlerOverhead.medianUs;
  const us = (v: number) => `${n(v)} µs`;
  const withoutLimiter = m.handler - m['limiter alone'];
  return [
    ['handler overhead', 'cancelOrder vs bare same UpdateItem', us(m.handler), `bare ${us(m.bare)}`, `×${n(m.handler / m.bare, 2)} ${verdict(m.handler / m.bare <= AIMS.handlerRatio, `≤ ${AIMS.handlerRatio}`)}`],
    ['handler overhead', 'cancelOrder vs bare UpdateItem + limiter', us(m.handler), `bare + limiter ${us(m['bare + limiter'])}`, `×${n(m.handler / m['bare + limiter'], 2)} ${verdict(m.handler / m['bare + limiter'] <= AIMS.handlerRatio, `≤ ${AIMS.handlerRatio}`)}`],
    ['handler overhead', 'cancelOrder minus limiter alone, vs bare', us(withoutLimiter), `bare ${us(m.bare)}; limiter alone ${us(m['limiter alone'])}`, `×${n(withoutLimiter / m.bare, 2)}`],
    ['handler overhead', 'cancelOrder stack alone (repository and limiter stubbed)', us(r.handlerOverhead.stackOnlyUs), '', `${n((r.handlerOverhead.stackOnlyUs / m.bare) * 100, 1)}% of the bare call`],
  ];
}

function roundTripRows(r: BenchResults): Row[] {
  return r.roundTrips.map((t) => ['DynamoDB round trips', `${t.scenario} [${t.server}]`, `${t.commands} calls, ${t.waves} sequential`, t.path, String(t.status)]);
}

function listRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  const cap = (mode: MemoryMode) => (mode === 'capped heap' ? `, old space capped at ${HEAP_CAP_MB} MB` : mode === 'live heap' ? ', live heap (gc before each sample)' : '');
  const figures = (f: ListFigures) =>
    f.failed
      ? f.failed
      : `total ${n(f.totalMs)} ms, first byte ${n(f.ttfbMs)} ms, first order ${n(f.firstOrderMs)} ms, peak +${n(f.peakRssMB, 1)} MB rss / +${n(f.peakHeapMB, 1)} MB heap`;
  for (const h of r.listOrders.filter((f) => f.variant === 'handler')) {
    const p = r.listOrders.find((f) => f.variant === 'plain scan' && f.size === h.size && f.mode === h.mode);
    if (!p) continue;
    const subject = `${size(h.size)} orders, handler${cap(h.mode)} (${h.runs} run${h.runs > 1 ? 's' : ''})`;
    rows.push(['listOrders', subject, figures(h), `plain scan: ${figures(p)}`, h.valid ? `valid, ${kB(h.bytes)}` : 'INVALID OUTPUT']);
  }
  for (const g of r.listMemoryGrowth) {
    rows.push(['listOrders memory', `handler peak growth ${size(g.from)} → ${size(g.to)}${cap(g.mode)}`, `rss ${pct(g.rss)}, heap ${pct(g.heap)}`, `aim < ${pct(AIMS.memoryGrowth)}`, g.holds ? 'holds' : 'does not hold']);
  }
  return rows;
}

function loadRows(r: BenchResults): Row[] {
  return r.load.map((l) => [
    'local stack load',
    `${l.route}, ${l.connections} conn × ${l.durationS} s`,
    `${n(l.requestsPerS)} req/s, p50 ${n(l.p50Ms)} ms, p99 ${n(l.p99Ms)} ms`,
    Object.entries(l.statusCounts).map(([s, c]) => `${s}×${c}`).join(' ') || 'no responses',
    l.errors || l.timeouts ? `${l.errors} errors, ${l.timeouts} timeouts` : 'no errors',
  ]);
}

/** The one table, as Markdown so it can go into the README as printed. */
export function renderTable(r: BenchResults): string {
  const header: Row = ['Figure', 'Subject', 'Measured', 'Against', 'Result'];
  const rows = [...bundleRows(r), ...overheadRows(r), ...roundTripRows(r), ...listRows(r), ...loadRows(r)];
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Where each bundle's extra init time comes from (esbuild metafile, bytes beyond the bare bundle). */
export function bundleExtras(r: BenchResults): string[] {
  const bare = r.bundles.find((b) => b.name === 'bare');
  if (!bare) return [];
  return r.bundles
    .filter((b) => b.name !== 'bare')
    .map((bundle) => {
      const ratios = r.moduleInit
        .filter((i) => i.name === bundle.name)
        .map((i) => `×${n(i.ratio, 2)} wall / ×${n(i.cpuRatio, 2)} CPU${i.nodeFlags.length ? ` with ${i.nodeFlags.join(' ')}` : ''} (${i.ratio <= AIMS.initRatio ? 'meets' : 'MISSES'} ≤ ${AIMS.initRatio})`);
      const top = extraOverBare(bundle, bare).slice(0, 3);
      return `${bundle.name}: init ${ratios.join(', ')}; beyond the bare bundle it carries ${top.map((e) => `${e.source} ${kB(e.bytes)}`).join(', ')}.`;
    });
}
