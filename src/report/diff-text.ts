/**
 * `hyprof diff` in the terminal: the comparison of two runs as tables in the manner of pprof, each
 * with its metric and unit in the header (one unit per table, chosen for its largest value, or
 * forced by --units), largest absolute change first. Sampled values carry their sampling error
 * (±, one standard error of B−A); a change within 3 errors is marked `noise` and listed after the
 * changes; timer values are probe-measured, exact. Increases are red and decreases green when
 * colours are on (term-colour.ts); `only in A` / `only in B` mark what one run lacks.
 */
import { columnUnit, type UnitChoice } from '../base/units.js';
import { NOISE_SIGMAS, type Compared, type DiffReport } from './diff.js';
import { formatCount, padLeft, significant } from './report-format.js';
import { paint as makePaint, type Paint } from './term-colour.js';

export interface DiffTextOptions {
  /** Rows per table (all when undefined). */
  limit?: number;
  colour?: boolean;
  /** Time unit of the tables (default: chosen per table for its largest value). */
  units?: UnitChoice;
}

/** A value in the shown unit, 4 significant digits. */
function value(v: number | undefined, scale: number): string {
  if (v === undefined) return '-';
  const x = v / scale;
  if (x === 0) return '0';
  return Math.abs(x) >= 1000 ? Math.round(x).toLocaleString('en-US') : significant(x, 4);
}

function signed(v: number, scale: number): string {
  const s = value(v, scale);
  return v > 0 ? `+${s}` : s;
}

function ratio(c: Compared, only: 'a' | 'b' | undefined): string {
  if (only === 'a') return 'only in A';
  if (only === 'b') return 'only in B';
  if (c.ratio === null) return c.delta === 0 ? '' : 'new';
  return `${c.ratio.toFixed(2)}x`;
}

/** The change, coloured by direction (not when it is noise); padded before colouring so columns stay aligned. */
function change(p: Paint, c: Compared, text: string, width: number): string {
  const s = padLeft(text, width);
  if (c.noise) return s;
  return c.delta > 0 ? p.worse(s) : c.delta < 0 ? p.better(s) : s;
}

/** The error column of a sampled value: `±12.3`, and `noise` when the change is within it. */
function errorText(c: Compared, scale: number): string {
  if (c.error === undefined) return '';
  return `±${value(c.error, scale)}${c.noise ? ' noise' : ''}`;
}

/** One unit for a table, from the largest value it shows. */
function tableUnit(d: DiffReport, values: Array<number | undefined>, units: UnitChoice): { label: string; scale: number } {
  const largest = values.reduce<number>((m, v) => Math.max(m, Math.abs(v ?? 0)), 0);
  return columnUnit(largest, d.metric, units);
}

function more(total: number, shown: number): string[] {
  return shown < total ? [`(${total - shown} more; --limit)`] : [];
}

export function renderDiff(d: DiffReport, opts: DiffTextOptions = {}): string {
  const p = makePaint(opts.colour ?? false);
  const units = opts.units ?? 'auto';
  const take = <T>(xs: T[]) => (opts.limit !== undefined ? xs.slice(0, opts.limit) : xs);
  const out: string[] = [
    `A: ${d.a.dir} (${d.a.thread})`,
    `B: ${d.b.dir} (${d.b.thread})`,
    `metric ${d.metric}${d.thread === 'mean' ? ' (mean thread: totals divided by the thread count)' : `, thread ${d.thread}`}; largest absolute change first; ratio B/A`,
    `timers are measured by probes (exact); sampled values carry their sampling error (±, one standard error of B-A); a change within ${NOISE_SIGMAS} errors is noise, listed after the changes`,
  ];
  if (d.a.threads !== d.b.threads) out.push(`note: A has ${d.a.threads} threads, B has ${d.b.threads}`);

  const head = (cols: string[], widths: number[], name: string) =>
    p.bold(cols.map((c, i) => padLeft(c, widths[i])).join(' ') + `  ${name}`);
  const W = [12, 12, 12, 10];

  const events = take(d.events);
  let { label: unit, scale } = tableUnit(d, events.flatMap((e) => [e.excl.a, e.excl.b, e.incl.a, e.incl.b]), units);
  out.push('', p.bold(`EVENTS: exclusive ${d.metric} (${unit}), timers and event paths (exact; an event path that is its timer's only one is not repeated)`));
  out.push(head([`A ${unit}`, `B ${unit}`, `B-A ${unit}`, 'B/A'], W, `${padLeft('A incl', 12)} ${padLeft('B incl', 12)} ${padLeft('A calls', 9)} ${padLeft('B calls', 9)}  Name`));
  for (const e of events) {
    out.push(
      [
        padLeft(value(e.excl.a, scale), W[0]),
        padLeft(value(e.excl.b, scale), W[1]),
        change(p, e.excl, signed(e.excl.delta, scale), W[2]),
        change(p, e.excl, ratio(e.excl, e.only), W[3]),
      ].join(' ') +
        `  ${padLeft(value(e.incl.a, scale), 12)} ${padLeft(value(e.incl.b, scale), 12)} ${padLeft(e.calls.a === undefined ? '-' : formatCount(e.calls.a), 9)} ${padLeft(e.calls.b === undefined ? '-' : formatCount(e.calls.b), 9)}  ${e.name}`,
    );
  }
  if (d.events.length === 0) out.push('(no timers)');
  out.push(...more(d.events.length, events.length));

  if (d.functions.length > 0) {
    const fns = take(d.functions);
    ({ label: unit, scale } = tableUnit(d, fns.flatMap((f) => [f.self.a, f.self.b]), units));
    out.push('', p.bold(`SAMPLED FUNCTIONS: self ${d.metric} (${unit}) per sample context ("all contexts" = the whole thread)`));
    out.push(head([`A ${unit}`, `B ${unit}`, `B-A ${unit}`, 'B/A', 'error'], [...W, 16], `${padLeft('A samples', 10)} ${padLeft('B samples', 10)}  Function  (in context)`));
    for (const f of fns) {
      out.push(
        [padLeft(value(f.self.a, scale), W[0]), padLeft(value(f.self.b, scale), W[1]), change(p, f.self, signed(f.self.delta, scale), W[2]), change(p, f.self, ratio(f.self, f.only), W[3]), padLeft(errorText(f.self, scale), 16)].join(' ') +
          `  ${padLeft(f.samples.a === undefined ? '-' : formatCount(f.samples.a), 10)} ${padLeft(f.samples.b === undefined ? '-' : formatCount(f.samples.b), 10)}  ${f.function}  (in ${f.context ?? 'all contexts'})`,
      );
    }
    out.push(...more(d.functions.length, fns.length));
  }

  if (d.lines.length > 0) {
    const lines = take(d.lines);
    ({ label: unit, scale } = tableUnit(d, lines.flatMap((l) => [l.value.a, l.value.b]), units));
    out.push('', p.bold(`SAMPLED LINES: ${d.metric} (${unit}) per sample context`));
    out.push(head([`A ${unit}`, `B ${unit}`, `B-A ${unit}`, 'B/A', 'error'], [...W, 16], `${padLeft('A samples', 10)} ${padLeft('B samples', 10)}  Line  (in context)`));
    for (const l of lines) {
      out.push(
        [padLeft(value(l.value.a, scale), W[0]), padLeft(value(l.value.b, scale), W[1]), change(p, l.value, signed(l.value.delta, scale), W[2]), change(p, l.value, ratio(l.value, l.only), W[3]), padLeft(errorText(l.value, scale), 16)].join(' ') +
          `  ${padLeft(l.samples.a === undefined ? '-' : formatCount(l.samples.a), 10)} ${padLeft(l.samples.b === undefined ? '-' : formatCount(l.samples.b), 10)}  ${l.line}  (in ${l.context})`,
      );
    }
    out.push(...more(d.lines.length, lines.length));
  }

  if (d.userEvents.length > 0) {
    out.push('', p.bold('USER EVENTS: mean value (in the unit the program recorded)'));
    out.push(head(['A mean', 'B mean', 'B-A', 'B/A'], W, `${padLeft('A count', 10)} ${padLeft('B count', 10)}  Event`));
    const us = take(d.userEvents);
    for (const u of us) {
      out.push(
        [padLeft(value(u.mean.a, 1), W[0]), padLeft(value(u.mean.b, 1), W[1]), change(p, u.mean, signed(u.mean.delta, 1), W[2]), change(p, u.mean, ratio(u.mean, u.only), W[3])].join(' ') +
          `  ${padLeft(u.count.a === undefined ? '-' : formatCount(u.count.a), 10)} ${padLeft(u.count.b === undefined ? '-' : formatCount(u.count.b), 10)}  ${u.name}`,
      );
    }
    out.push(...more(d.userEvents.length, us.length));
  }
  return `${out.map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
}
