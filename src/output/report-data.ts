/**
 * What `hyprof report` shows, computed from a TAU profile: per thread and mean-over-threads flat
 * tables, the event-path tree, hot source lines per sample context, sample drop counts and user
 * events. Pure functions, no I/O: the text renderer and `--json` print the same data.
 */
import { UserError } from '../base/errors.js';
import { displayName, inDisplayForm, isCallpath, threadLabel, threadNameOf } from './tau-model.js';
import type { TauEvent, TauProfile, TauThreadProfile, TauUserEvent } from './tau-model.js';

export type SortKey = 'excl' | 'incl' | 'calls' | 'name';

export type ThreadSelector =
  | { kind: 'all' }
  | { kind: 'mean' }
  | { kind: 'thread'; thread: number }
  | { kind: 'nct'; node: number; context: number; thread: number };

export interface ReportOptions {
  metric?: string;
  thread?: ThreadSelector;
  sort?: SortKey;
  /** Rows of the flat table per thread (all when undefined). */
  limit?: number;
  /** Include the event-path tree. */
  callpath?: boolean;
  /** Sampled lines shown per context (hot lines section and under [CONTEXT] in the tree). */
  hotLines?: number;
  /**
   * When the profile holds only the threads to print (a streamed report of many threads): the mean
   * over all threads, their sample counts, and how many there are (rank-scan.ts computes them).
   */
  mean?: { thread: TauThreadProfile; counts: { taken?: number; drops: DropCount[] }; threads: number };
}

export interface ReportRow {
  name: string;
  group: string;
  calls: number;
  subrs: number;
  excl: number;
  incl: number;
  /** Inclusive value as a percentage of the thread's largest inclusive value (pprof's %Time). */
  percent: number;
}

export interface HotLine {
  /** The [SAMPLE] name without its prefix: `<function> [{<file>} {<line>}]`. */
  name: string;
  samples: number;
  value: number;
  /** Share of the context's sampled value, in percent. */
  percent: number;
}

export interface ContextHotLines {
  /** The context's timer name (the [CONTEXT] name without its prefix). */
  context: string;
  samples: number;
  value: number;
  lines: HotLine[];
  /** Sampled lines not shown (beyond the hot-lines limit). */
  more: number;
}

export interface CallTreeNode {
  /** The last event of the path, as displayed. */
  name: string;
  /** The full event path (display form), or the flat name for a root without a path entry. */
  path: string;
  calls: number;
  subrs: number;
  excl: number;
  incl: number;
  children: CallTreeNode[];
  /** Children left out (beyond the hot-lines limit under sample nodes), and their summed value. */
  omitted?: { count: number; incl: number };
}

export interface DropCount {
  reason: string;
  count: number;
}

export interface ReportUserEvent {
  name: string;
  count: number;
  max: number;
  min: number;
  mean: number;
  std: number;
}

export interface ThreadReport {
  /** `n,c,t 0,0,1` or `mean`. */
  label: string;
  node?: number;
  context?: number;
  thread?: number;
  /** The name the program gave the thread (pthread_setname_np, hyprof_set_thread_name), if any. */
  name?: string;
  /** Largest inclusive value of the thread (the 100% of the %Time column). */
  total: number;
  rows: ReportRow[];
  /** Flat events before --limit was applied. */
  rowCount: number;
  callTree?: CallTreeNode[];
  hotLines: ContextHotLines[];
  samplesTaken?: number;
  drops: DropCount[];
  userEvents: ReportUserEvent[];
}

export interface Report {
  dir: string;
  metric: string;
  metrics: string[];
  /** Column unit: TIME metrics in milliseconds (stored as microseconds), others as counts. */
  unit: 'msec' | 'counts';
  sort: SortKey;
  callpathDepth?: number;
  threads: ThreadReport[];
  /** Mean over all threads (present when the selection asks for it and there are several threads). */
  mean?: ThreadReport;
}

const SAMPLE_PREFIXES = ['[CONTEXT]', '[SAMPLE]', '[UNWIND]', '[SUMMARY]'];

/** Path separator as TAU writes it, tolerating its extra spaces before `=>`. */
const SPLIT_RE = /\s+=>\s+/;

function groupHas(e: TauEvent, g: string): boolean {
  return e.group.split('|').some((x) => x.trim() === g);
}

/** A sample-derived node ([CONTEXT], [SAMPLE], [UNWIND]) by name or group. */
export function isSampleNode(e: TauEvent): boolean {
  const n = e.name.trimStart();
  if (SAMPLE_PREFIXES.some((p) => n.startsWith(p))) return true;
  return ['TAU_SAMPLE', 'TAU_SAMPLE_CONTEXT', 'TAU_UNWIND'].some((g) => groupHas(e, g));
}

function isPath(e: TauEvent): boolean {
  return isCallpath(e) || SPLIT_RE.test(e.name);
}

/** Flat timers: what the main table shows. */
export function flatTimers(t: TauThreadProfile): TauEvent[] {
  return t.events.filter((e) => !isPath(e) && !isSampleNode(e));
}

function pathParts(name: string): string[] {
  return displayName(name).split(SPLIT_RE).map((p) => p.trim());
}

function stripPrefix(name: string, prefix: string): string {
  const n = name.trim();
  return n.startsWith(prefix) ? n.slice(prefix.length).trim() : n;
}

export function parseThreadSelector(text: string): ThreadSelector {
  const s = text.trim();
  if (s === 'all') return { kind: 'all' };
  if (s === 'mean') return { kind: 'mean' };
  if (/^\d+$/.test(s)) return { kind: 'thread', thread: Number(s) };
  const m = /^(\d+),(\d+),(\d+)$/.exec(s);
  if (m) return { kind: 'nct', node: Number(m[1]), context: Number(m[2]), thread: Number(m[3]) };
  throw new UserError(`--thread: '${text}' is not a thread: give N, n,c,t (e.g. 0,0,1), all or mean`);
}

function sortRows(rows: ReportRow[], key: SortKey): ReportRow[] {
  const byName = (a: ReportRow, b: ReportRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const cmp: Record<SortKey, (a: ReportRow, b: ReportRow) => number> = {
    excl: (a, b) => b.excl - a.excl || b.incl - a.incl || byName(a, b),
    incl: (a, b) => b.incl - a.incl || b.excl - a.excl || byName(a, b),
    calls: (a, b) => b.calls - a.calls || b.incl - a.incl || byName(a, b),
    name: byName,
  };
  return [...rows].sort(cmp[key]);
}

/**
 * Sample drop counts and samples taken on one thread, from its metadata: hyprof's per-thread
 * `hyprof dropped <reason>` keys, else TAU's `TAU_EBS_SAMPLES_DROPPED_<reason>_<tid>`; samples taken
 * from `TAU_EBS_SAMPLES_TAKEN_<tid>` (both write it). Process-wide totals are not per-thread numbers.
 */
export function sampleCounts(t: TauThreadProfile): { taken?: number; drops: DropCount[] } {
  const drops = new Map<string, number>();
  const tauDrops = new Map<string, number>();
  const index = Number(t.metadata.find(([k]) => k === 'hyprof Thread Index')?.[1] ?? t.thread);
  let taken: number | undefined;
  for (const [key, value] of t.metadata) {
    const v = Number(value);
    if (!Number.isFinite(v)) continue;
    const hy = /^hyprof dropped (?:samples: )?(.+)$/.exec(key);
    if (hy) {
      const reason = hy[1].replace(/_/g, ' ');
      drops.set(reason, (drops.get(reason) ?? 0) + v);
      continue;
    }
    const td = /^TAU_EBS_SAMPLES_DROPPED_(.+)_(\d+)$/.exec(key);
    if (td && Number(td[2]) === index) {
      const reason = td[1] === 'TAU' ? 'in tool' : td[1].toLowerCase();
      tauDrops.set(reason, (tauDrops.get(reason) ?? 0) + v);
      continue;
    }
    const tk = /^TAU_EBS_SAMPLES_TAKEN_(\d+)$/.exec(key);
    if (tk && Number(tk[1]) === index) taken = v;
  }
  // hyprof writes its own reasons (TAU's keys too, for TAU's tools): do not count them twice.
  const chosen = drops.size > 0 ? drops : tauDrops;
  return { taken, drops: [...chosen].map(([reason, count]) => ({ reason, count })) };
}

/** Samples taken and dropped over all threads. */
function sumCounts(threads: TauThreadProfile[]): { taken?: number; drops: DropCount[] } {
  let taken: number | undefined;
  const drops = new Map<string, number>();
  for (const t of threads) {
    const c = sampleCounts(t);
    if (c.taken !== undefined) taken = (taken ?? 0) + c.taken;
    for (const d of c.drops) drops.set(d.reason, (drops.get(d.reason) ?? 0) + d.count);
  }
  return { taken, drops: [...drops].map(([reason, count]) => ({ reason, count })) };
}

export function userEventStats(u: TauUserEvent): ReportUserEvent {
  const variance = u.count > 0 ? u.sumsqr / u.count - u.mean * u.mean : 0;
  return { name: displayName(u.name), count: u.count, max: u.max, min: u.min, mean: u.mean, std: Math.sqrt(Math.abs(variance)) };
}

/** Hot sampled lines per context, from the `… => [CONTEXT] c => … => [SAMPLE] s` path entries. */
export function hotLinesOf(t: TauThreadProfile, limit: number): ContextHotLines[] {
  const contexts = new Map<string, { samples: number; value: number; lines: Map<string, HotLine> }>();
  const ctx = (name: string) => {
    let c = contexts.get(name);
    if (!c) contexts.set(name, (c = { samples: 0, value: 0, lines: new Map() }));
    return c;
  };
  const flatSamples: TauEvent[] = [];
  let sawPaths = false;
  for (const e of t.events) {
    const parts = pathParts(e.name);
    if (parts.length === 1) {
      if (parts[0].startsWith('[CONTEXT]')) {
        const c = ctx(stripPrefix(parts[0], '[CONTEXT]'));
        c.samples += e.calls;
        c.value += e.incl;
      } else if (parts[0].startsWith('[SAMPLE]')) flatSamples.push(e);
      continue;
    }
    const last = parts[parts.length - 1];
    if (!last.startsWith('[SAMPLE]')) continue;
    let ci = -1;
    for (let i = parts.length - 2; i >= 0; i--) if (parts[i].startsWith('[CONTEXT]')) { ci = i; break; }
    if (ci < 0) continue;
    sawPaths = true;
    const c = ctx(stripPrefix(parts[ci], '[CONTEXT]'));
    const line = stripPrefix(last, '[SAMPLE]');
    const h = c.lines.get(line) ?? { name: line, samples: 0, value: 0, percent: 0 };
    h.samples += e.calls;
    h.value += e.excl || e.incl;
    c.lines.set(line, h);
  }
  // Without event paths the samples cannot be split by context; with a single context they all belong to it.
  if (!sawPaths && flatSamples.length > 0) {
    const name = contexts.size === 1 ? [...contexts.keys()][0] : '(all contexts)';
    const c = ctx(name);
    for (const e of flatSamples) {
      const line = stripPrefix(displayName(e.name), '[SAMPLE]');
      const h = c.lines.get(line) ?? { name: line, samples: 0, value: 0, percent: 0 };
      h.samples += e.calls;
      h.value += e.excl || e.incl;
      c.lines.set(line, h);
    }
  }
  const out: ContextHotLines[] = [];
  for (const [name, c] of contexts) {
    const lines = [...c.lines.values()];
    if (lines.length === 0) continue;
    const sum = lines.reduce((s, l) => s + l.value, 0);
    const base = c.value > 0 ? c.value : sum;
    const samples = c.samples > 0 ? c.samples : lines.reduce((s, l) => s + l.samples, 0);
    for (const l of lines) l.percent = base > 0 ? (100 * l.value) / base : 0;
    lines.sort((a, b) => b.value - a.value || b.samples - a.samples || (a.name < b.name ? -1 : 1));
    out.push({ context: name, samples, value: base, lines: lines.slice(0, limit), more: Math.max(0, lines.length - limit) });
  }
  out.sort((a, b) => b.value - a.value || (a.context < b.context ? -1 : 1));
  return out;
}

/** Where the last ' => ' of a path starts and how many there are, counted as split counts them. */
function separators(path: string): { last: number; count: number } {
  let last = -1;
  let count = 0;
  for (let at = path.indexOf(' => '); at >= 0; at = path.indexOf(' => ', at + 4)) {
    last = at;
    count++;
  }
  return { last, count };
}

/**
 * The event-path tree. A path's parent is its prefix; a single-event prefix with no path entry of its
 * own is the flat event (TAU's depth-limited paths start below the root, so several roots appear).
 */
export function callTreeOf(t: TauThreadProfile, hotLimit: number): CallTreeNode[] {
  const nodes = new Map<string, CallTreeNode>();
  const flat = new Map<string, TauEvent>();
  for (const e of t.events) {
    const parts = pathParts(e.name);
    if (parts.length === 1) {
      flat.set(parts[0], e);
      continue;
    }
    // A name already in display form is its own key: no second string per path.
    const key = inDisplayForm(e.name) ? e.name : parts.join(' => ');
    const prev = nodes.get(key);
    if (prev) {
      prev.calls += e.calls;
      prev.subrs += e.subrs;
      prev.excl += e.excl;
      prev.incl += e.incl;
    } else {
      nodes.set(key, { name: parts[parts.length - 1], path: key, calls: e.calls, subrs: e.subrs, excl: e.excl, incl: e.incl, children: [] });
    }
  }
  if (nodes.size === 0) return [];
  const roots: CallTreeNode[] = [];
  for (const node of [...nodes.values()]) {
    // The parent is the path up to its last separator (found as split finds them, left to right).
    const { last, count } = separators(node.path);
    const parentKey = node.path.slice(0, last);
    let parent = nodes.get(parentKey);
    if (!parent && count === 1) {
      const f = flat.get(parentKey);
      parent = f
        ? { name: parentKey, path: parentKey, calls: f.calls, subrs: f.subrs, excl: f.excl, incl: f.incl, children: [] }
        : { name: parentKey, path: parentKey, calls: 0, subrs: 0, excl: 0, incl: 0, children: [] };
      nodes.set(parentKey, parent);
      roots.push(parent);
    }
    if (parent) parent.children.push(node);
    else {
      // A path cut by the recording depth: show all of it, its start is not in the tree.
      node.name = node.path;
      roots.push(node);
    }
  }
  const order = (list: CallTreeNode[]) => list.sort((a, b) => b.incl - a.incl || (a.name < b.name ? -1 : 1));
  // An explicit stack, not recursion: paths may be deeper than the call stack allows.
  const pending = [...order(roots)];
  while (pending.length > 0) {
    const n = pending.pop()!;
    order(n.children);
    // Sample subtrees can be wide: keep the hottest children of context and unwind nodes.
    if ((n.name.startsWith('[CONTEXT]') || n.name.startsWith('[UNWIND]')) && n.children.length > hotLimit) {
      const cut = n.children.splice(hotLimit);
      n.omitted = { count: cut.length, incl: cut.reduce((s, c) => s + c.incl, 0) };
    }
    for (const c of n.children) pending.push(c);
  }
  return roots;
}

/** The mean over threads as one synthetic thread: every value divided by the number of threads. */
export function meanThread(threads: TauThreadProfile[]): TauThreadProfile {
  const n = threads.length;
  const events = new Map<string, TauEvent>();
  const users = new Map<string, TauUserEvent>();
  for (const t of threads) {
    for (const e of t.events) {
      const m = events.get(e.name) ?? { name: e.name, group: e.group, calls: 0, subrs: 0, excl: 0, incl: 0 };
      m.calls += e.calls / n;
      m.subrs += e.subrs / n;
      m.excl += e.excl / n;
      m.incl += e.incl / n;
      events.set(e.name, m);
    }
    for (const u of t.userEvents) {
      const m = users.get(u.name);
      if (!m) users.set(u.name, { ...u, mean: u.mean * u.count });
      else {
        m.count += u.count;
        m.max = Math.max(m.max, u.max);
        m.min = Math.min(m.min, u.min);
        m.mean += u.mean * u.count;
        m.sumsqr += u.sumsqr;
      }
    }
  }
  for (const u of users.values()) u.mean = u.count > 0 ? u.mean / u.count : 0;
  return {
    node: -1,
    context: -1,
    thread: -1,
    metric: threads[0]?.metric ?? 'TIME',
    events: [...events.values()],
    userEvents: [...users.values()],
    metadata: [],
  };
}

function threadReport(
  t: TauThreadProfile,
  label: string,
  opts: Required<Omit<ReportOptions, 'metric' | 'thread' | 'limit' | 'mean'>> & { limit?: number },
  counts = sampleCounts(t),
): ThreadReport {
  const timers = flatTimers(t);
  // A loop, not Math.max(...values): a spread of 100,000s of arguments overflows the stack.
  let total = 0;
  for (const e of t.events) if (!isPath(e) && e.incl > total) total = e.incl;
  const rows = sortRows(
    timers.map((e) => ({
      name: displayName(e.name),
      group: e.group,
      calls: e.calls,
      subrs: e.subrs,
      excl: e.excl,
      incl: e.incl,
      percent: total > 0 ? (100 * e.incl) / total : 0,
    })),
    opts.sort,
  );
  const name = threadNameOf(t);
  const ids = t.node >= 0 ? { node: t.node, context: t.context, thread: t.thread, ...(name ? { name } : {}) } : {};
  return {
    label,
    ...ids,
    total,
    rows: opts.limit !== undefined ? rows.slice(0, opts.limit) : rows,
    rowCount: rows.length,
    ...(opts.callpath ? { callTree: callTreeOf(t, opts.hotLines) } : {}),
    hotLines: hotLinesOf(t, opts.hotLines),
    ...(counts.taken !== undefined ? { samplesTaken: counts.taken } : {}),
    drops: counts.drops,
    userEvents: t.userEvents.map(userEventStats).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
}

/** The threads a selector names (none for `mean`); an unknown thread is a UserError naming those there are. */
export function selectThreads(all: TauThreadProfile[], sel: ThreadSelector): TauThreadProfile[] {
  switch (sel.kind) {
    case 'all':
      return all;
    case 'mean':
      return [];
    case 'thread': {
      const found = all.filter((t) => t.thread === sel.thread);
      if (found.length === 0) {
        throw new UserError(`--thread ${sel.thread}: no such thread (the profile has ${all.map((t) => t.thread).join(', ')})`);
      }
      return found;
    }
    case 'nct': {
      const found = all.filter((t) => t.node === sel.node && t.context === sel.context && t.thread === sel.thread);
      if (found.length === 0) {
        throw new UserError(
          `--thread ${sel.node},${sel.context},${sel.thread}: no such thread (the profile has ${all.map((t) => `${t.node},${t.context},${t.thread}`).join('; ')})`,
        );
      }
      return found;
    }
  }
}

export function buildReport(profile: TauProfile, opts: ReportOptions = {}): Report {
  let mi = 0;
  if (opts.metric !== undefined) {
    mi = profile.metrics.indexOf(opts.metric);
    if (mi < 0) throw new UserError(`--metric ${opts.metric}: not in this profile (it has ${profile.metrics.join(', ')})`);
  }
  const metric = profile.metrics[mi];
  const all = profile.threads[mi];
  const sel = opts.thread ?? { kind: 'all' };
  const common = { sort: opts.sort ?? 'excl', callpath: opts.callpath ?? false, hotLines: opts.hotLines ?? 5, limit: opts.limit };
  const chosen = selectThreads(all, sel);
  const depth = Number((all[0] ?? opts.mean?.thread)?.metadata.find(([k]) => k === 'HYPROF_CALLPATH_DEPTH' || k === 'TAU_CALLPATH_DEPTH')?.[1]);
  const wantMean = sel.kind === 'mean' || (sel.kind === 'all' && (opts.mean?.threads ?? all.length) > 1);
  return {
    dir: profile.dir,
    metric,
    metrics: profile.metrics,
    unit: /TIME/i.test(metric) ? 'msec' : 'counts',
    sort: common.sort,
    ...(Number.isFinite(depth) ? { callpathDepth: depth } : {}),
    threads: chosen.map((t) => threadReport(t, threadLabel(t), common)),
    ...(wantMean
      ? { mean: opts.mean ? threadReport(opts.mean.thread, 'mean', common, opts.mean.counts) : threadReport(meanThread(all), 'mean', common, sumCounts(all)) }
      : {}),
  };
}
