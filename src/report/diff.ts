/**
 * Two runs compared: per event (flat timers and event paths), per sampled function and per sampled
 * line within each sample context, and per user event, both values, the difference and the ratio,
 * sorted by absolute change. For the mean thread (ParaProf's mean: totals divided by the thread
 * count) or one chosen thread. Pure functions over two profiles in memory; `hyprof diff`, its
 * `--json` and the viewer's compare mode show the same data.
 *
 * Honest differences: a timer's values are measured by probes (exact for that run); a sampled value
 * is N samples and carries the sampling error of a count, value/√N (Poisson), so the change B − A
 * has the error √(σA² + σB²). A change within 3 errors is noise: marked, and listed after the
 * changes instead of ranked among them (3σ, so that of a few hundred rows of two runs of one
 * program hardly one is called a change by chance). An event path that is the only path of its
 * timer repeats the flat row's numbers and is left out, and so is a function's row in a context
 * that holds all its samples.
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
  /** Measured by probes (calls, timer values): no sampling error. */
  exact?: true;
  /** Sampled values: the standard error of `delta` from the numbers of samples (value/√N per run). */
  error?: number;
  /** Sampled values: |delta| is within 3 errors, so the runs do not differ beyond sampling error. */
  noise?: boolean;
}

/** How many standard errors a change must exceed to count as one. */
export const NOISE_SIGMAS = 3;

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

/** A probe-measured value in both runs. */
function exact(a: number | undefined, b: number | undefined): Compared {
  return { ...compared(a, b), exact: true };
}

/**
 * A sampled value in both runs with its sampling error: `n` the samples behind each side (over
 * all threads the value is a mean of), so each side's standard error is value/√n.
 */
export function sampled(a: number | undefined, b: number | undefined, na: number, nb: number): Compared {
  const c = compared(a, b);
  const side = (v: number | undefined, n: number) => (v === undefined || n <= 0 ? 0 : Math.abs(v) / Math.sqrt(n));
  const error = Math.hypot(side(a, na), side(b, nb));
  return { ...c, error, noise: Math.abs(c.delta) <= NOISE_SIGMAS * error };
}

/** Real changes first, largest first; noise after them, by where the value is (not ranked by change). */
const changesFirst = <T>(key: (x: T) => Compared, tie: (x: T) => string) => (x: T, y: T): number => {
  const kx = key(x);
  const ky = key(y);
  if (!!kx.noise !== !!ky.noise) return kx.noise ? 1 : -1;
  const by = kx.noise ? Math.max(ky.a ?? 0, ky.b ?? 0) - Math.max(kx.a ?? 0, kx.b ?? 0) : Math.abs(ky.delta) - Math.abs(kx.delta);
  return by || (tie(x) < tie(y) ? -1 : tie(x) > tie(y) ? 1 : 0);
};

const sameSides = (x: Compared, y: Compared): boolean => x.a === y.a && x.b === y.b;

function onlyOf(a: unknown, b: unknown): { only?: 'a' | 'b' } {
  return a === undefined ? { only: 'b' } : b === undefined ? { only: 'a' } : {};
}


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
      excl: exact(x?.excl, y?.excl),
      incl: exact(x?.incl, y?.incl),
      calls: exact(x?.calls, y?.calls),
    });
  }
  // A path that is its timer's only one repeats the flat row (same numbers in both runs): left out.
  const flatRows = new Map(out.filter((e) => e.kind === 'timer').map((e) => [e.name, e]));
  const twice = (e: EventDiff): boolean => {
    if (e.kind !== 'path') return false;
    const f = flatRows.get(e.name.split(' => ').at(-1)!);
    return f !== undefined && sameSides(f.excl, e.excl) && sameSides(f.incl, e.incl) && sameSides(f.calls, e.calls);
  };
  // By the exclusive change (where the time went), then the inclusive one.
  return out.filter((e) => !twice(e)).sort((x, y) => Math.abs(y.excl.delta) - Math.abs(x.excl.delta) || Math.abs(y.incl.delta) - Math.abs(x.incl.delta) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
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

/** `na`, `nb`: threads each side's values are the mean of (1 for one thread), to count its samples. */
function functionDiffs(a: TauThreadProfile, b: TauThreadProfile, na: number, nb: number): FunctionDiff[] {
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
    out.push({
      function: any.fn,
      context: any.context,
      ...onlyOf(x, y),
      self: sampled(x?.self, y?.self, (x?.samples ?? 0) * na, (y?.samples ?? 0) * nb),
      samples: compared(x?.samples, y?.samples),
    });
  }
  // A function's row in the one context that holds all its samples repeats its "all contexts" row.
  const whole = new Map(out.filter((f) => f.context === null).map((f) => [f.function, f]));
  const twice = (f: FunctionDiff): boolean => {
    const w = f.context === null ? undefined : whole.get(f.function);
    return w !== undefined && sameSides(w.self, f.self) && sameSides(w.samples, f.samples);
  };
  return out.filter((f) => !twice(f)).sort(changesFirst((f) => f.self, (f) => `${f.context ?? ''} ${f.function}`));
}

function lineDiffs(a: TauThreadProfile, b: TauThreadProfile, na: number, nb: number): LineDiff[] {
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
    out.push({
      line: any.line,
      context: any.context,
      ...onlyOf(x, y),
      value: sampled(x?.value, y?.value, (x?.samples ?? 0) * na, (y?.samples ?? 0) * nb),
      samples: compared(x?.samples, y?.samples),
    });
  }
  return out.sort(changesFirst((l) => l.value, (l) => `${l.context} ${l.line}`));
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
  return out.sort(changesFirst((u) => u.mean, (u) => u.name));
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
  // A mean thread's sample counts are totals divided by the thread count: the samples behind it are that many times more.
  const behind = (p: TauProfile) => (sel.kind === 'mean' || sel.kind === 'all' ? count(p) : 1);
  return {
    metric,
    unit: /TIME/i.test(metric) ? 'usec' : 'counts',
    thread: selectorText(sel),
    a: { dir: a.dir, threads: count(a), thread: ta.label },
    b: { dir: b.dir, threads: count(b), thread: tb.label },
    events: eventDiffs(ta.t, tb.t),
    functions: functionDiffs(ta.t, tb.t, behind(a), behind(b)),
    lines: lineDiffs(ta.t, tb.t, behind(a), behind(b)),
    userEvents: userEventDiffs(ta.t, tb.t),
  };
}
