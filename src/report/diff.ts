/**
 * Two runs compared: per event (flat timers and event paths), per sampled function and per sampled
 * line within each sample context, and per user event, both values, the difference and the ratio,
 * sorted by absolute change. For the mean thread (ParaProf's mean: totals divided by the thread
 * count) or one chosen thread. Pure functions over two profiles in memory; `hyprof diff`, its
 * `--json` and the viewer's compare mode show the same data.
 */
import { UserError } from '../base/errors.js';
import { sampledCode } from '../export/export-common.js';
import { flatTimers, isSampleNode, meanThread, selectThreads, userEventStats, type ThreadSelector } from './report-data.js';
import { displayName, namedThreadLabel, type TauProfile, type TauThreadProfile } from '../profile/tau-model.js';

/** One value in both runs. `a` / `b` undefined: the item exists in one run only. */
export interface Compared {
  a?: number;
  b?: number;
  /** b - a (a missing side counts as 0). */
  delta: number;
  /** b / a; null when a is 0 or missing (no ratio to give). */
  ratio: number | null;
}

export interface EventDiff {
  name: string;
  /** `timer` (flat) or `path` (an event path a => b, a timer in its calling context). */
  kind: 'timer' | 'path';
  /** Present in one run only. */
  only?: 'a' | 'b';
  excl: Compared;
  incl: Compared;
  calls: Compared;
}

export interface FunctionDiff {
  function: string;
  /** The sample context (the path of the timer the samples were taken in), or null for all contexts together. */
  context: string | null;
  only?: 'a' | 'b';
  /** Samples whose innermost frame is the function, as a value of the metric. */
  self: Compared;
  /** Samples taken (counts), self. */
  samples: Compared;
}

export interface LineDiff {
  /** `<function> [{<file>} {<line>}]`. */
  line: string;
  context: string;
  only?: 'a' | 'b';
  value: Compared;
  samples: Compared;
}

export interface UserEventDiff {
  name: string;
  only?: 'a' | 'b';
  count: Compared;
  mean: Compared;
  max: Compared;
}

export interface RunSide {
  dir: string;
  threads: number;
  /** Label of the compared thread in this run. */
  thread: string;
}

export interface DiffReport {
  metric: string;
  /** Values are in this unit: TIME metrics in microseconds as TAU stores them, others counts. */
  unit: 'usec' | 'counts';
  /** `mean` or the thread selector as given. */
  thread: string;
  a: RunSide;
  b: RunSide;
  events: EventDiff[];
  functions: FunctionDiff[];
  lines: LineDiff[];
  userEvents: UserEventDiff[];
}

export interface DiffOptions {
  metric?: string;
  /** `mean` (default), a thread number or n,c,t. */
  thread?: ThreadSelector;
}

export function compared(a: number | undefined, b: number | undefined): Compared {
  const delta = (b ?? 0) - (a ?? 0);
  return { ...(a !== undefined ? { a } : {}), ...(b !== undefined ? { b } : {}), delta, ratio: a !== undefined && a !== 0 && b !== undefined ? b / a : null };
}

function onlyOf(a: unknown, b: unknown): { only?: 'a' | 'b' } {
  return a === undefined ? { only: 'b' } : b === undefined ? { only: 'a' } : {};
}

const byChange = <T>(key: (x: T) => Compared, tie: (x: T) => string) => (x: T, y: T): number =>
  Math.abs(key(y).delta) - Math.abs(key(x).delta) || (tie(x) < tie(y) ? -1 : tie(x) > tie(y) ? 1 : 0);

/** The metric both runs are compared in: the one asked for, else the first of run A; both must have it. */
export function commonMetric(a: TauProfile, b: TauProfile, metric?: string): string {
  const m = metric ?? a.metrics[0];
  const missing = [a, b].filter((p) => !p.metrics.includes(m));
  if (missing.length > 0) {
    const what = missing.map((p) => `${p.dir} has ${p.metrics.join(', ')}`).join('; ');
    throw new UserError(
      metric !== undefined
        ? `--metric ${metric}: not in both profiles (${what})`
        : `the profiles measured different metrics (${a.dir} has ${a.metrics.join(', ')}; ${b.dir} has ${b.metrics.join(', ')}); ` +
          'compare one both have with --metric',
    );
  }
  return m;
}

/** The thread of one run that is compared: the mean over its threads, or the selected one. */
function compareThread(p: TauProfile, metric: string, sel: ThreadSelector): { t: TauThreadProfile; label: string } {
  const all = p.threads[p.metrics.indexOf(metric)];
  if (all.length === 0) throw new UserError(`${p.dir}: no threads in this profile`);
  if (sel.kind === 'mean' || sel.kind === 'all') return { t: meanThread(all), label: `mean of ${all.length} thread${all.length === 1 ? '' : 's'}` };
  let found: TauThreadProfile[];
  try {
    found = selectThreads(all, sel);
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`${p.dir}: ${e.message}`);
    throw e;
  }
  // A thread number alone matches that thread of every node (and process): one must be chosen.
  if (found.length > 1) {
    const shown = found.slice(0, 10).map((t) => `${t.node},${t.context},${t.thread}`).join('; ') + (found.length > 10 ? '; …' : '');
    throw new UserError(`${p.dir}: --thread ${selectorText(sel)}: ${found.length} threads have this number (${shown}); give n,c,t or --node`);
  }
  return { t: found[0], label: namedThreadLabel(found[0]) };
}

function eventDiffs(a: TauThreadProfile, b: TauThreadProfile): EventDiff[] {
  const want = (t: TauThreadProfile) => t.events.filter((e) => !isSampleNode(e) && !e.name.includes('[CONTEXT]') && !e.name.includes('[SAMPLE]') && !e.name.includes('[UNWIND]'));
  const flat = new Set([...flatTimers(a), ...flatTimers(b)].map((e) => displayName(e.name)));
  const index = (t: TauThreadProfile) => {
    const m = new Map<string, { excl: number; incl: number; calls: number }>();
    for (const e of want(t)) {
      const k = displayName(e.name);
      const v = m.get(k) ?? { excl: 0, incl: 0, calls: 0 };
      v.excl += e.excl;
      v.incl += e.incl;
      v.calls += e.calls;
      m.set(k, v);
    }
    return m;
  };
  const ia = index(a);
  const ib = index(b);
  const out: EventDiff[] = [];
  for (const name of new Set([...ia.keys(), ...ib.keys()])) {
    const x = ia.get(name);
    const y = ib.get(name);
    out.push({
      name,
      kind: flat.has(name) ? 'timer' : 'path',
      ...onlyOf(x, y),
      excl: compared(x?.excl, y?.excl),
      incl: compared(x?.incl, y?.incl),
      calls: compared(x?.calls, y?.calls),
    });
  }
  // By the exclusive change (where the time went), then the inclusive one.
  return out.sort((x, y) => Math.abs(y.excl.delta) - Math.abs(x.excl.delta) || Math.abs(y.incl.delta) - Math.abs(x.incl.delta) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

/**
 * The sampled records of a thread: the calling context (the path of the timer the samples were
 * taken in, so `main => Iteration 3 => work` and `main => Iteration 1 => work` stay apart), the
 * innermost function, the sampled line, count and value. A flat profile (no event paths) has one
 * context, the whole thread.
 */
function sampledRecords(t: TauThreadProfile): Array<{ context: string; fn: string; line: string; samples: number; value: number }> {
  const out: Array<{ context: string; fn: string; line: string; samples: number; value: number }> = [];
  const flat: typeof out = [];
  for (const e of t.events) {
    const parts = e.name.split(/\s+=>\s+/).map((p) => displayName(p));
    const last = parts[parts.length - 1];
    if (!last.startsWith('[SAMPLE]')) continue;
    const code = sampledCode(last);
    if (!code) continue;
    const value = e.excl || e.incl;
    const line = last.slice('[SAMPLE]'.length).trim();
    if (parts.length === 1) {
      flat.push({ context: WHOLE_THREAD, fn: code.name, line, samples: e.calls, value });
      continue;
    }
    let ci = parts.length - 2;
    while (ci >= 0 && !parts[ci].startsWith('[CONTEXT]')) ci--;
    if (ci < 0) continue;
    const context = ci > 0 ? parts.slice(0, ci).join(' => ') : parts[ci].slice('[CONTEXT]'.length).trim();
    out.push({ context, fn: code.name, line, samples: e.calls, value });
  }
  return out.length > 0 ? out : flat;
}

/** The context of the samples of a profile without event paths. */
const WHOLE_THREAD = '(whole thread)';

function functionDiffs(a: TauThreadProfile, b: TauThreadProfile): FunctionDiff[] {
  const index = (t: TauThreadProfile) => {
    const m = new Map<string, { context: string | null; fn: string; self: number; samples: number }>();
    const add = (context: string | null, fn: string, value: number, samples: number) => {
      const k = `${context ?? ''}\u0000${fn}`;
      const v = m.get(k) ?? { context, fn, self: 0, samples: 0 };
      v.self += value;
      v.samples += samples;
      m.set(k, v);
    };
    for (const r of sampledRecords(t)) {
      add(null, r.fn, r.value, r.samples);
      if (r.context !== WHOLE_THREAD) add(r.context, r.fn, r.value, r.samples);
    }
    return m;
  };
  const ia = index(a);
  const ib = index(b);
  const out: FunctionDiff[] = [];
  for (const k of new Set([...ia.keys(), ...ib.keys()])) {
    const x = ia.get(k);
    const y = ib.get(k);
    const any = (x ?? y)!;
    out.push({ function: any.fn, context: any.context, ...onlyOf(x, y), self: compared(x?.self, y?.self), samples: compared(x?.samples, y?.samples) });
  }
  return out.sort(byChange((f) => f.self, (f) => `${f.context ?? ''} ${f.function}`));
}

function lineDiffs(a: TauThreadProfile, b: TauThreadProfile): LineDiff[] {
  const index = (t: TauThreadProfile) => {
    const m = new Map<string, { context: string; line: string; value: number; samples: number }>();
    for (const r of sampledRecords(t)) {
      const k = `${r.context}\u0000${r.line}`;
      const v = m.get(k) ?? { context: r.context, line: r.line, value: 0, samples: 0 };
      v.value += r.value;
      v.samples += r.samples;
      m.set(k, v);
    }
    return m;
  };
  const ia = index(a);
  const ib = index(b);
  const out: LineDiff[] = [];
  for (const k of new Set([...ia.keys(), ...ib.keys()])) {
    const x = ia.get(k);
    const y = ib.get(k);
    const any = (x ?? y)!;
    out.push({ line: any.line, context: any.context, ...onlyOf(x, y), value: compared(x?.value, y?.value), samples: compared(x?.samples, y?.samples) });
  }
  return out.sort(byChange((l) => l.value, (l) => `${l.context} ${l.line}`));
}

function userEventDiffs(a: TauThreadProfile, b: TauThreadProfile): UserEventDiff[] {
  const index = (t: TauThreadProfile) => new Map(t.userEvents.map((u) => [displayName(u.name), userEventStats(u)]));
  const ia = index(a);
  const ib = index(b);
  const out: UserEventDiff[] = [];
  for (const name of new Set([...ia.keys(), ...ib.keys()])) {
    const x = ia.get(name);
    const y = ib.get(name);
    out.push({ name, ...onlyOf(x, y), count: compared(x?.count, y?.count), mean: compared(x?.mean, y?.mean), max: compared(x?.max, y?.max) });
  }
  return out.sort(byChange((u) => u.mean, (u) => u.name));
}

export function selectorText(sel: ThreadSelector): string {
  switch (sel.kind) {
    case 'all':
    case 'mean':
      return 'mean';
    case 'thread':
      return String(sel.thread);
    case 'nct':
      return `${sel.node},${sel.context},${sel.thread}`;
  }
}

export function buildDiff(a: TauProfile, b: TauProfile, opts: DiffOptions = {}): DiffReport {
  const metric = commonMetric(a, b, opts.metric);
  const sel = opts.thread ?? { kind: 'mean' };
  const ta = compareThread(a, metric, sel);
  const tb = compareThread(b, metric, sel);
  const count = (p: TauProfile) => p.threads[p.metrics.indexOf(metric)].length;
  return {
    metric,
    unit: /TIME/i.test(metric) ? 'usec' : 'counts',
    thread: selectorText(sel),
    a: { dir: a.dir, threads: count(a), thread: ta.label },
    b: { dir: b.dir, threads: count(b), thread: tb.label },
    events: eventDiffs(ta.t, tb.t),
    functions: functionDiffs(ta.t, tb.t),
    lines: lineDiffs(ta.t, tb.t),
    userEvents: userEventDiffs(ta.t, tb.t),
  };
}
