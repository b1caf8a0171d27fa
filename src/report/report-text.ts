/**
 * The terminal form of `hyprof report`: TAU pprof's table layout (so a TAU user reads it at a
 * glance), followed by what pprof does not show — the event-path tree with sample nodes, the hot
 * lines per context, sample drops and user events.
 */
import { formatCount, formatPercent, formatPerCall, formatValue, padLeft, significant, withCommas } from './report-format.js';
import type { Report, ThreadReport } from './report-data.js';
import type { CallTreeNode } from './report-tree.js';
import { columnUnit, pprofWord, type UnitChoice } from '../base/units.js';

const RULE = '-'.repeat(87);

interface Units {
  /** A stored value in the column's unit. */
  fmt: (v: number) => string;
  excl: string;
  incl: string;
  perCall: string;
  short: string;
}


/**
 * The unit of the report's value columns: TIME in the unit its largest inclusive value reads best in
 * (or the forced one); `ms` prints exactly as TAU's pprof (`--units ms`). Counts as counts.
 */
function unitsOf(report: Report, units: UnitChoice): Units {
  if (report.unit !== 'msec') return { fmt: (v) => formatValue(v, 1), excl: 'counts', incl: 'total counts', perCall: 'counts/call', short: 'counts' };
  let largest = 0;
  for (const t of [...report.threads, ...(report.mean ? [report.mean] : [])]) for (const r of t.rows) largest = Math.max(largest, Math.abs(r.incl));
  const u = columnUnit(largest, report.metric, units);
  const word = pprofWord(u.label);
  // pprof's own format in msec; other units keep 4 significant digits (1.9 s must not print as 1).
  const fmt = u.scale === 1000 ? (v: number) => formatValue(v, 1000) : (v: number) => scaled(v / u.scale);
  return { fmt, excl: word, incl: `total ${word}`, perCall: 'usec/call', short: word };
}

function scaled(x: number): string {
  if (x === 0) return '0';
  return Math.abs(x) >= 1000 ? withCommas(x) : significant(x, 4);
}

function* flatTable(t: ThreadReport, u: Units): Generator<string> {
  yield RULE;
  yield '%Time    Exclusive    Inclusive       #Call      #Subrs  Inclusive Name';
  yield `${padLeft(u.excl, 18)} ${padLeft(u.incl, 12)}${' '.repeat(25)}${padLeft(u.perCall, 10)} `;
  yield RULE;
  for (const r of t.rows) {
    yield [
        padLeft(formatPercent(r.percent), 5),
        padLeft(u.fmt(r.excl), 12),
        padLeft(u.fmt(r.incl), 12),
        padLeft(formatCount(r.calls), 11),
        padLeft(formatCount(r.subrs), 11),
        padLeft(formatPerCall(r.incl, r.calls), 10),
        r.name,
      ].join(' ');
  }
  if (t.rows.length < t.rowCount) yield `(${t.rows.length} of ${t.rowCount} events shown; --limit)`;
  if (t.rowCount === 0) yield '(no timers)';
}

/** The tree in depth-first order, with an explicit stack (a profile's paths may be deeper than the
 * call stack of a recursive walk allows) holding one list of children per level. */
function* treeLines(roots: CallTreeNode[], u: Units): Generator<string> {
  const stack: Array<{ nodes: CallTreeNode[]; i: number; depth: number; omitted?: CallTreeNode['omitted'] }> = [{ nodes: roots, i: 0, depth: 0 }];
  while (stack.length > 0) {
    const level = stack[stack.length - 1];
    if (level.i === level.nodes.length) {
      stack.pop();
      const o = level.omitted;
      if (o) yield `${padLeft(u.fmt(o.incl), 12)} ${' '.repeat(12)} ${' '.repeat(9)}  ${'  '.repeat(level.depth)}(${o.count} more)`;
      continue;
    }
    const n = level.nodes[level.i++];
    yield `${padLeft(u.fmt(n.incl), 12)} ${padLeft(u.fmt(n.excl), 12)} ${padLeft(formatCount(n.calls), 9)}  ${'  '.repeat(level.depth)}${n.name}`;
    const omitted = n.omitted;
    const children = n.children;
    if (children.length > 0 || omitted) stack.push({ nodes: children, i: 0, depth: level.depth + 1, omitted });
  }
}

function* callTree(report: Report, t: ThreadReport, u: Units): Generator<string> {
  if (!t.callTree) return;
  yield '';
  yield 'Event paths (a => b), hottest first:';
  if (t.callTree.length === 0) {
    yield '  (none in this profile: measure with HYPROF_CALLPATH=1, or TAU_CALLPATH=1 under TAU)';
    return;
  }
  if (report.callpathDepth !== undefined) {
    yield `  (paths were recorded to depth ${report.callpathDepth}; deeper parts start new roots)`;
  }
  yield `${padLeft('Inclusive', 12)} ${padLeft('Exclusive', 12)} ${padLeft('#Call', 9)}  Name`;
  yield `${padLeft(u.short, 12)} ${padLeft(u.short, 12)}`;
  yield* treeLines(t.callTree, u);
}

function hotLines(t: ThreadReport, u: Units): string[] {
  if (t.hotLines.length === 0) return [];
  const out = ['', 'Hot lines per context (sampled value, share of the context):'];
  for (const c of t.hotLines) {
    out.push(`  [CONTEXT] ${c.context}: ${formatCount(c.samples)} samples, ${u.fmt(c.value)} ${u.short}`);
    out.push(`    ${padLeft('%', 5)} ${padLeft(u.short, 10)} ${padLeft('#Samples', 9)}  Line`);
    for (const l of c.lines) {
      out.push(
        `    ${padLeft(formatPercent(l.percent), 5)} ${padLeft(u.fmt(l.value), 10)} ${padLeft(formatCount(l.samples), 9)}  ${l.name}`,
      );
    }
    if (c.more > 0) out.push(`    (${c.more} more line${c.more === 1 ? '' : 's'})`);
  }
  return out;
}

function samples(t: ThreadReport, mean: boolean): string[] {
  if (t.samplesTaken === undefined && t.drops.length === 0) return [];
  const parts: string[] = [];
  if (t.samplesTaken !== undefined) parts.push(`${withCommas(t.samplesTaken)} taken`);
  const lost = t.drops.filter((d) => d.count > 0);
  const dropped = lost.reduce((s, d) => s + d.count, 0);
  parts.push(
    lost.length === 0
      ? 'none dropped'
      : `${withCommas(dropped)} dropped (${lost.map((d) => `${d.reason}: ${withCommas(d.count)}`).join(', ')})`,
  );
  return ['', `Samples${mean ? ' (all threads)' : ''}: ${parts.join(', ')}`];
}

function num(v: number): string {
  return significant(v, 6);
}

function userEvents(t: ThreadReport, mean: boolean): string[] {
  if (t.userEvents.length === 0) return [];
  const out = [
    '',
    `USER EVENTS${mean ? ' (all threads)' : ''}:`,
    RULE,
    'NumSamples   MaxValue   MinValue  MeanValue  Std. Dev.  Event Name',
    RULE,
  ];
  for (const e of t.userEvents) {
    out.push(
      [padLeft(formatCount(e.count), 10), padLeft(num(e.max), 10), padLeft(num(e.min), 10), padLeft(num(e.mean), 10), padLeft(num(e.std), 10), ` ${e.name}`].join(' '),
    );
  }
  return out;
}

/** Async regions: own time (the timer's exclusive value, in the report's unit) beside the settle time
 * (wall time from start to settlement, always milliseconds): what a region around an `await` took. */
function asyncRegions(t: ThreadReport, u: Units, mean: boolean): string[] {
  if (t.asyncRegions.length === 0) return [];
  const ms = (us: number) => padLeft(significant(us / 1000, 4), 11);
  const out = [
    '',
    `ASYNC REGIONS${mean ? ' (all threads)' : ''}: own time beside settle time (start to settlement, msec)`,
    RULE,
    `${padLeft('#Call', 9)} ${padLeft(`Own ${u.short}`, 12)} ${padLeft('#Settled', 9)} ${padLeft('Settle mean', 11)} ${padLeft('Settle max', 11)}  Name`,
    RULE,
  ];
  for (const r of t.asyncRegions) {
    const pending = r.unsettled > 0 ? ` (${formatCount(r.unsettled)} unsettled at exit)` : '';
    out.push(
      `${padLeft(formatCount(r.calls), 9)} ${padLeft(u.fmt(r.excl), 12)} ${padLeft(formatCount(r.settled), 9)} ${r.settled > 0 ? ms(r.settleMean) : padLeft('-', 11)} ${r.settled > 0 ? ms(r.settleMax) : padLeft('-', 11)}  ${r.name}${pending}`,
    );
  }
  return out;
}

/** One thread's lines, made as they are printed: the tables of millions of events are never held as lines. */
function* threadSection(report: Report, t: ThreadReport, u: Units, mean: boolean): Generator<string> {
  yield '';
  yield mean || t.node === undefined
    ? 'FUNCTION SUMMARY (mean):'
    : `NODE ${t.node};CONTEXT ${t.context};THREAD ${t.thread}${t.name ? ` "${t.name}"` : ''}:`;
  yield* flatTable(t, u);
  yield* callTree(report, t, u);
  yield* hotLines(t, u);
  yield* samples(t, mean);
  yield* asyncRegions(t, u, mean);
  yield* userEvents(t, mean);
}

const SORT_WORDS = { excl: 'exclusive', incl: 'inclusive', calls: 'calls', name: 'name' } as const;

/** Lines per piece of the report's text: a report of millions of events is never one string. */
const LINES_PER_PIECE = 4096;

/** The whole report as text, in pieces of whole lines (each ends with a newline). */
export function* reportPieces(report: Report, units: UnitChoice = 'auto'): Generator<string> {
  const u = unitsOf(report, units);
  let lines = [
    `Profile ${report.dir}: metric ${report.metric}${report.metrics.length > 1 ? ` (of ${report.metrics.join(', ')})` : ''}, sorted by ${SORT_WORDS[report.sort]}`,
  ];
  const sections = report.threads.map((t) => () => threadSection(report, t, u, false));
  if (report.mean) sections.push(() => threadSection(report, report.mean!, u, true));
  for (const section of sections) {
    // Line by line: push(...section) of 100,000s of lines would overflow the stack.
    for (const l of section()) {
      lines.push(l.replace(/\s+$/, ''));
      if (lines.length >= LINES_PER_PIECE) {
        yield `${lines.join('\n')}\n`;
        lines = [];
      }
    }
  }
  if (lines.length > 0) yield `${lines.join('\n')}\n`;
}

/** The whole report as text (ends with a newline). */
export function renderReport(report: Report, units: UnitChoice = 'auto'): string {
  return [...reportPieces(report, units)].join('');
}
