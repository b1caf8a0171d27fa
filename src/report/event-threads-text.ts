/**
 * `hyprof report --event NAME`: one event on every thread as bars of plain text, the way a TAU
 * pprof user reads a function across threads, with the mean, min, max and standard deviation.
 */
import { columnUnit, pprofWord, type UnitChoice } from '../base/units.js';
import type { EventAcrossThreads } from './event-threads.js';
import { padLeft, padRight, significant } from './report-format.js';
import { paint } from './term-colour.js';

const BAR = 40;

export function renderEventBars(e: EventAcrossThreads, opts: { colour?: boolean; units?: UnitChoice } = {}): string {
  const p = paint(opts.colour ?? false);
  // One unit for the table: the one its largest value reads best in (or --units).
  const largest = Math.max(e.excl.max, e.incl.max, e.excl.mean, e.incl.mean);
  const u = columnUnit(largest, e.metric, opts.units ?? 'auto');
  const unit = pprofWord(u.label);
  const scale = u.scale;
  const v = (x: number | undefined) => (x === undefined ? '-' : x === 0 ? '0' : Math.abs(x / scale) >= 1000 ? Math.round(x / scale).toLocaleString('en-US') : significant(x / scale, 4));
  const what = e.kind === 'timer' ? 'exclusive' : 'self (sampled)';
  const labelWidth = Math.min(40, Math.max(8, ...e.threads.map((t) => t.label.length)));
  const max = Math.max(e.excl.max, e.excl.mean);
  const bar = (x: number | undefined) => {
    const n = x === undefined || max <= 0 ? 0 : Math.round((BAR * x) / max);
    return '#'.repeat(n);
  };
  const out = [
    p.bold(`${e.kind === 'timer' ? 'Timer' : 'Sampled function'} "${e.name}": ${what} ${e.metric} in ${unit}, on ${e.threads.length} thread${e.threads.length === 1 ? '' : 's'} (${e.present} with it)`),
    `${padRight('thread', labelWidth)} ${padLeft(unit, 10)}  ${padLeft(e.kind === 'timer' ? `incl ${unit}` : `total ${unit}`, 12)}  ${padLeft(e.kind === 'timer' ? 'calls' : 'samples', 8)}`,
  ];
  for (const t of e.threads) {
    const label = t.label.length > labelWidth ? `${t.label.slice(0, labelWidth - 1)}…` : t.label;
    out.push(`${padRight(label, labelWidth)} ${padLeft(v(t.excl), 10)}  ${padLeft(v(t.incl), 12)}  ${padLeft(t.calls === undefined ? '-' : significant(t.calls, 6), 8)}  ${bar(t.excl)}`);
  }
  out.push('');
  for (const [k, x] of [['mean', e.excl.mean], ['min', e.excl.min], ['max', e.excl.max], ['std. dev.', e.excl.std]] as const) {
    out.push(`${padRight(k, labelWidth)} ${padLeft(v(x), 10)}  ${k === 'mean' || k === 'std. dev.' ? '' : ''}${padLeft(v(k === 'mean' ? e.incl.mean : k === 'min' ? e.incl.min : k === 'max' ? e.incl.max : e.incl.std), 12)}  ${' '.repeat(8)}  ${k === 'std. dev.' ? '' : p.dim(bar(x))}`);
  }
  return `${out.map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
}
