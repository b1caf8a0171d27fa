/**
 * Which function: the samples of a thread by function, as perf report shows them. Self counts the
 * samples whose innermost frame is the function (`perf report --no-children`); total counts the
 * samples with the function anywhere in the chain, once per sample however often it recurs
 * (`perf report --children`). Overall, and per sample context (the timer that was running), from the
 * `… => [CONTEXT] c => [UNWIND] … => [SAMPLE] s` entries of a TAU profile: lines of one function
 * are added up, inlined functions are functions of their own. Without event paths (a flat TAU
 * profile) only the flat [SAMPLE] entries are known: self, and total = self.
 */
import { columnUnit, pprofWord, type UnitChoice } from '../base/units.js';
import { UserError } from '../base/errors.js';
import { sampledCode, type ExportFrame } from '../export/export-common.js';
import { meanThread, parseThreadSelector, selectThreads, type ThreadSelector } from './report-data.js';
import { formatCount, formatPercent, formatValue, padLeft, significant, withCommas } from './report-format.js';
import { displayName, namedThreadLabel, type TauProfile, type TauThreadProfile } from '../profile/tau-model.js';

/** Samples and values of one function. */
interface FunctionCounts {
  function: string;
  /** Source file of the function ('' when unknown). */
  file: string;
  selfSamples: number;
  self: number;
  totalSamples: number;
  total: number;
}

export interface FunctionRow extends FunctionCounts {
  /** Shares of the sampled value of the scope (thread or context), in percent. */
  selfPercent: number;
  totalPercent: number;
}

export interface FunctionScope {
  /** The context's timer ([CONTEXT] name without the prefix), or null for the whole thread. */
  context: string | null;
  samples: number;
  value: number;
  rows: FunctionRow[];
  /** Functions not shown (beyond --limit). */
  more: number;
}

export interface ThreadFunctions {
  label: string;
  overall: FunctionScope;
  contexts: FunctionScope[];
}

export interface FunctionReport {
  dir: string;
  metric: string;
  unit: 'msec' | 'counts';
  sort: 'self' | 'total';
  threads: ThreadFunctions[];
  mean?: ThreadFunctions;
}

type Acc = FunctionCounts;

class Scope {
  samples = 0;
  value = 0;
  readonly byFunction = new Map<string, Acc>();

  private acc(fn: string, file: string): Acc {
    const k = `${fn}\u0000${file}`;
    let a = this.byFunction.get(k);
    if (!a) this.byFunction.set(k, (a = { function: fn, file, selfSamples: 0, self: 0, totalSamples: 0, total: 0 }));
    return a;
  }

  /** One merged sample record: its chain innermost last, its count and value. */
  add(chain: Array<{ name: string; file?: string }>, samples: number, value: number): void {
    this.samples += samples;
    this.value += value;
    const leaf = chain[chain.length - 1];
    const self = this.acc(leaf.name, leaf.file ?? '');
    self.selfSamples += samples;
    self.self += value;
    const seen = new Set<string>();
    for (const f of chain) {
      const a = this.acc(f.name, f.file ?? '');
      const k = `${a.function}\u0000${a.file}`;
      if (seen.has(k)) continue;
      seen.add(k);
      a.totalSamples += samples;
      a.total += value;
    }
  }

  rows(sort: 'self' | 'total', limit: number | undefined, context: string | null): FunctionScope {
    const key = sort === 'self' ? (a: Acc) => a.self : (a: Acc) => a.total;
    const all = [...this.byFunction.values()].sort((a, b) => key(b) - key(a) || (a.function < b.function ? -1 : 1));
    const shown = limit !== undefined ? all.slice(0, limit) : all;
    const pct = (v: number) => (this.value > 0 ? (100 * v) / this.value : 0);
    return {
      context,
      samples: this.samples,
      value: this.value,
      rows: shown.map((a) => ({ ...a, selfPercent: pct(a.self), totalPercent: pct(a.total) })),
      more: all.length - shown.length,
    };
  }
}

const SPLIT = /\s+=>\s+/;

/** The (negative) context reference at the top of node i's stack. */
function rootOf(parent: number[], i: number): number {
  let p = parent[i];
  while (p >= 0) p = parent[p];
  return p;
}

/** The function view of one thread. */
export function functionsOf(t: TauThreadProfile, sort: 'self' | 'total' = 'self', limit?: number): ThreadFunctions {
  const overall = new Scope();
  const contexts = new Map<string, Scope>();
  const flat: Array<{ name: string; calls: number; value: number }> = [];
  let sawPaths = false;
  const scopeOf = (ctx: string): Scope => {
    let s = contexts.get(ctx);
    if (!s) contexts.set(ctx, (s = new Scope()));
    return s;
  };
  // Contexts the stacks file covers take their chains from there: complete stacks, every frame.
  const covered = new Set<string>();
  if (t.stacks) {
    const st = t.stacks;
    const code = st.frames.map(([fn, file, line]) => sampledCode(`[SAMPLE] ${fn.startsWith('UNRESOLVED ') || (!file && line === 0) ? fn : `${fn} [{${file}} {${line}}]`}`)!);
    const chains: ExportFrame[][] = [];
    st.contexts.forEach((c) => covered.add(c.split(SPLIT).map(displayName).join(' => ')));
    for (let i = 0; i < st.parent.length; i++) {
      const p = st.parent[i];
      chains[i] = p < 0 ? [code[st.frame[i]]] : [...chains[p], code[st.frame[i]]];
      if (st.samples[i] === 0 && st.values[i] === 0) continue;
      sawPaths = true;
      const ctxPath = st.contexts[-rootOf(st.parent, i) - 1].split(SPLIT);
      const ctx = displayName(ctxPath[ctxPath.length - 1].trim().slice('[CONTEXT]'.length));
      overall.add(chains[i], st.samples[i], st.values[i]);
      scopeOf(ctx).add(chains[i], st.samples[i], st.values[i]);
    }
  }
  for (const e of t.events) {
    const parts = e.name.split(SPLIT);
    const last = parts[parts.length - 1].trim();
    if (!last.startsWith('[SAMPLE]')) continue;
    if (parts.length === 1) {
      flat.push({ name: last, calls: e.calls, value: e.excl || e.incl });
      continue;
    }
    let ci = parts.length - 2;
    while (ci >= 0 && !parts[ci].trim().startsWith('[CONTEXT]')) ci--;
    if (ci < 0) continue;
    if (covered.has(parts.slice(0, ci + 1).map(displayName).join(' => '))) continue;
    sawPaths = true;
    const chain = parts.slice(ci + 1).map((p) => sampledCode(p)).filter((f): f is NonNullable<typeof f> => f !== null);
    if (chain.length === 0) continue;
    const value = e.excl || e.incl;
    overall.add(chain, e.calls, value);
    scopeOf(displayName(parts[ci].trim().slice('[CONTEXT]'.length))).add(chain, e.calls, value);
  }
  if (!sawPaths) for (const f of flat) overall.add([sampledCode(f.name)!], f.calls, f.value);
  return {
    label: namedThreadLabel(t),
    overall: overall.rows(sort, limit, null),
    contexts: [...contexts.entries()]
      .map(([name, s]) => s.rows(sort, limit, name))
      .sort((a, b) => b.value - a.value || ((a.context ?? '') < (b.context ?? '') ? -1 : 1)),
  };
}

export interface FunctionReportOptions {
  metric?: string;
  thread?: ThreadSelector;
  sort?: 'self' | 'total';
  limit?: number;
}

export function buildFunctionReport(profile: TauProfile, opts: FunctionReportOptions = {}): FunctionReport {
  let mi = 0;
  if (opts.metric !== undefined) {
    mi = profile.metrics.indexOf(opts.metric);
    if (mi < 0) throw new UserError(`--metric ${opts.metric}: not in this profile (it has ${profile.metrics.join(', ')})`);
  }
  const all = profile.threads[mi];
  const sel = opts.thread ?? parseThreadSelector('all');
  const sort = opts.sort ?? 'self';
  const chosen = selectThreads(all, sel);
  const wantMean = sel.kind === 'mean' || (sel.kind === 'all' && all.length > 1);
  const metric = profile.metrics[mi];
  return {
    dir: profile.dir,
    metric,
    unit: /TIME/i.test(metric) ? 'msec' : 'counts',
    sort,
    threads: chosen.map((t) => functionsOf(t, sort, opts.limit)),
    ...(wantMean ? { mean: { ...functionsOf(meanThread(all), sort, opts.limit), label: 'mean' } } : {}),
  };
}

/** A value in the report's unit: pprof's msec format in ms, else 4 significant digits (1.9 s is not 1). */
function inUnit(v: number, scale: number): string {
  if (scale === 1000 || scale === 1) return formatValue(v, scale);
  const x = v / scale;
  return x === 0 ? '0' : Math.abs(x) >= 1000 ? withCommas(x) : significant(x, 4);
}

function scopeLines(s: FunctionScope, scale: number, unit: string, indent: string): string[] {
  const out = [
    `${indent}${padLeft('Self%', 6)} ${padLeft(`Self ${unit}`, 11)} ${padLeft('Total%', 6)} ${padLeft(`Total ${unit}`, 12)} ${padLeft('#Samples', 9)}  Function`,
  ];
  for (const r of s.rows) {
    const where = r.file ? ` [${r.file}]` : '';
    out.push(
      `${indent}${padLeft(formatPercent(r.selfPercent), 6)} ${padLeft(inUnit(r.self, scale), 11)} ${padLeft(formatPercent(r.totalPercent), 6)} ${padLeft(inUnit(r.total, scale), 12)} ${padLeft(formatCount(r.totalSamples), 9)}  ${r.function}${where}`,
    );
  }
  if (s.more > 0) out.push(`${indent}(${s.more} more function${s.more === 1 ? '' : 's'}; --limit)`);
  return out;
}

/** The function report as text (ends with a newline). */
export function renderFunctionReport(report: FunctionReport, units: UnitChoice = 'auto'): string {
  // One unit for the report: the one its largest value reads best in (or --units); ms prints as before.
  let largest = 0;
  for (const t of [...report.threads, ...(report.mean ? [report.mean] : [])]) largest = Math.max(largest, t.overall.value);
  const u = columnUnit(largest, report.metric, units);
  const unit = pprofWord(u.label);
  const scale = u.scale;
  const lines = [
    `Profile ${report.dir}: sampled functions, metric ${report.metric}, sorted by ${report.sort === 'self' ? 'self (perf report --no-children)' : 'total (perf report --children)'}`,
    'Self: samples in the function itself; Total: samples with the function anywhere in their call chain.',
  ];
  const section = (t: ThreadFunctions, mean: boolean) => {
    lines.push('', mean ? 'FUNCTIONS (mean):' : `FUNCTIONS ${t.label}:`);
    if (t.overall.samples === 0) {
      lines.push('  (no samples: measure with sampling on, e.g. under hyprof run)');
      return;
    }
    lines.push(`  All contexts: ${formatCount(t.overall.samples)} samples, ${inUnit(t.overall.value, scale)} ${unit}`);
    // Line by line: push(...rows) of 100,000s of functions would overflow the stack.
    for (const l of scopeLines(t.overall, scale, unit, '  ')) lines.push(l);
    for (const c of t.contexts) {
      lines.push('', `  [CONTEXT] ${c.context}: ${formatCount(c.samples)} samples, ${inUnit(c.value, scale)} ${unit}`);
      for (const l of scopeLines(c, scale, unit, '    ')) lines.push(l);
    }
  };
  for (const t of report.threads) section(t, false);
  if (report.mean) section(report.mean, true);
  return `${lines.map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
}
