/**
 * `hyprof report --fold NAME` as text: per process and length class, one row per bin of the
 * synthetic instance (fold.ts), then per thread the top function of each bin as one letter.
 */
import type { FoldBin, FoldClass, FoldReport } from './fold.js';

const pct = (x: number) => `${Math.round(100 * x)}%`;

function rate(m: string, v: number | null): string {
  if (v === null) return '-';
  return /TIME|task-clock|cpu-clock/i.test(m) ? v.toFixed(2) : v >= 100 ? v.toFixed(0) : v.toFixed(2);
}

function rateHeader(m: string, axis: string): string {
  return /TIME|task-clock|cpu-clock/i.test(m) ? `${m}/${axis}` : `${m}/ms`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function binRow(b: FoldBin, c: FoldClass, metrics: string[]): string[] {
  const range = `${b.from.toFixed(0)}-${b.to.toFixed(0)} %`;
  const abs = c.absolute && b.fromMs !== undefined ? `${b.fromMs.toFixed(2)}-${(b.toMs as number).toFixed(2)}` : '';
  const fns = b.functions.map((f) => `${f.name} ${pct(f.share)}`).join(', ');
  const conf = b.note ?? (b.confidence !== null ? `±${pct(b.confidence)}` : '');
  return [range, ...(c.absolute ? [abs] : []), String(b.samples), String(b.instances), fns, b.lines[0]?.name ?? '', ...metrics.map((m) => rate(m, b.rates[m])), conf];
}

function table(rows: string[][]): string[] {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => `  ${r.map((x, i) => pad(x, w[i])).join('  ')}`.trimEnd());
}

function threadMap(c: FoldClass): string[] {
  if (c.threads.length < 2) return [];
  const letters = new Map<string, string>();
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const letter = (name: string | null) => {
    if (name === null) return '.';
    let l = letters.get(name);
    if (!l) letters.set(name, (l = alphabet[letters.size] ?? '?'));
    return l;
  };
  const lines = c.threads.map((t) => `  thread ${String(t.thread).padStart(3)}  ${t.top.map(letter).join('')}  (${t.samples} samples)`);
  return [
    'By thread (the top function of each bin, one letter per bin; . no samples):',
    ...lines,
    `  ${[...letters].map(([n, l]) => `${l} = ${n}`).join('   ')}`,
  ];
}

/** A class printed in full: at least MIN_CLASS instances or MIN_CLASS_SHARE of them. */
const MIN_CLASS = 5;
const MIN_CLASS_SHARE = 0.01;
function isFolded(c: FoldClass, instances: number): boolean {
  return c.instances >= MIN_CLASS || c.instances >= MIN_CLASS_SHARE * instances;
}

export function renderFold(reports: FoldReport[]): string {
  const out: string[] = [];
  for (const r of reports) {
    const lost = [
      r.lost.instances ? `${r.lost.instances} instances not kept (capacity ${r.capacity.instances} per thread: HYPROF_FOLD_INSTANCES)` : '',
      r.lost.samples ? `${r.lost.samples} samples not kept (capacity ${r.capacity.samples} per thread: HYPROF_FOLD_SAMPLES)` : '',
      r.lost.unplaced ? `${r.lost.unplaced} samples whose instance is not recorded (not kept, or still running at the end)` : '',
    ].filter(Boolean);
    out.push(
      `FOLD '${r.series}' (node ${r.node}, context ${r.context}): ${r.instances} instances of ${r.events} timer${r.events === 1 ? '' : 's'} ` +
        `on thread${r.instanceThreads.length === 1 ? '' : 's'} ${r.instanceThreads.join(', ')}, ${r.samples} samples folded`,
    );
    out.push(lost.length ? `Lost: ${lost.join('; ')}` : 'Lost: nothing');
    if (r.axis !== 'TIME') {
      out.push(`Time axis: ${r.axis} of the instance's thread` + (r.offAxis ? ` (${r.offAxis} samples of other threads left out: their ${r.axis} is not the instance's)` : ''));
    }
    out.push(`Lengths: ${r.classRule}`);
    const folded = r.classes.filter((c) => isFolded(c, r.instances));
    const outliers = r.classes.filter((c) => !isFolded(c, r.instances));
    if (outliers.length) {
      const n = outliers.reduce((a, c) => a + c.instances, 0);
      const ls = outliers.map((c) => `${c.lengthMs.min.toFixed(2)}${c.lengthMs.max > c.lengthMs.min ? `-${c.lengthMs.max.toFixed(2)}` : ''} ms`);
      out.push(`Outliers: ${n} instance${n === 1 ? '' : 's'} in classes too small to fold (under ${MIN_CLASS_SHARE * 100} % of the instances and under ${MIN_CLASS} instances): ${ls.join(', ')} (--json lists them)`);
    }
    folded.forEach((c, k) => {
      const l = c.lengthMs;
      out.push('');
      out.push(
        `Class ${k + 1} of ${folded.length}${c.waited === undefined ? '' : c.waited ? ' (waited)' : ' (ran)'}: ${c.instances} instances of ${l.min.toFixed(2)}-${l.max.toFixed(2)} ms ` +
          `(median ${l.median.toFixed(2)}, p10-p90 ${l.p10.toFixed(2)}-${l.p90.toFixed(2)}), ${c.samples} samples` +
          (c.absolute ? '; lengths similar: absolute time shown' : '; lengths spread: normalised time only'),
      );
      const head = ['bin', ...(c.absolute ? [r.axis === 'TIME' ? 'ms' : `ms (${r.axis})`] : []), 'samples', 'inst', 'top functions', 'top line', ...r.metrics.map((m) => rateHeader(m, r.axis)), 'confidence'];
      out.push(...table([head, ...c.bins.map((b) => binRow(b, c, r.metrics))]));
      out.push(...threadMap(c));
    });
    out.push('');
  }
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}
