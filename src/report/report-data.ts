/**
 * What `hyprof report` shows, computed from a TAU profile: per thread and mean-over-threads flat
 * tables, the event-path tree, hot source lines per sample context, sample drop counts and user
 * events. Pure functions, no I/O: the text renderer and `--json` print the same data.
 */
import { UserError } from '../base/errors.js';
import { CallTreeBuilder, type CallTreeNode, type FlatValues } from './report-tree.js';
import { displayName, threadLabel, threadNameOf } from '../profile/tau-model.js';
import type { TauEvent, TauProfile, TauThreadProfile, TauUserEvent } from '../profile/tau-model.js';
import { settleStatsOf } from '../profile/settle-events.js';
import { ownString, type ThreadSink } from '../profile/tau-reader.js';

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

/** An async region (Node): its timer's calls and own time beside its settle time (wall time from
 * start to settlement, src/profile/settle-events.ts), in the report's stored units (microseconds). */
export interface AsyncRegionRow {
  name: string;
  calls: number;
  excl: number;
  incl: number;
  /** Instances that settled, and their settle time's mean and max. */
  settled: number;
  settleMean: number;
  settleMax: number;
  /** Instances still pending when the thread exited. */
  unsettled: number;
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
  /** Async regions with their settle time (none when the profile has no settle-time user events). */
  asyncRegions: AsyncRegionRow[];
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

const CALLPATH = 1;
const SAMPLE = 2;
const MPI = 4;
const groupBits = new Map<string, number>();

/** What a group string says of its event (TAU_CALLPATH, a sample group, MPI), worked out once per group. */
export function groupFlags(group: string): number {
  let bits = groupBits.get(group);
  if (bits === undefined) {
    const gs = group.split('|').map((x) => x.trim());
    bits =
      (gs.includes('TAU_CALLPATH') ? CALLPATH : 0) |
      (gs.some((g) => g === 'TAU_SAMPLE' || g === 'TAU_SAMPLE_CONTEXT' || g === 'TAU_UNWIND') ? SAMPLE : 0) |
      (gs.includes('MPI') ? MPI : 0);
    if (groupBits.size < 10_000) groupBits.set(group, bits);
  }
  return bits;
}

/** The group is TAU_CALLPATH (the event is a path). */
export function callpathGroup(group: string): boolean {
  return (groupFlags(group) & CALLPATH) !== 0;
}

/** The group is MPI. */
export function mpiGroup(group: string): boolean {
  return (groupFlags(group) & MPI) !== 0;
}

/** A sample-derived node ([CONTEXT], [SAMPLE], [UNWIND]) by name or group. */
export function isSampleEvent(name: string, group: string): boolean {
  if ((groupFlags(group) & SAMPLE) !== 0) return true;
  const n = name.trimStart();
  return SAMPLE_PREFIXES.some((p) => n.startsWith(p));
}

/** A sample-derived node ([CONTEXT], [SAMPLE], [UNWIND]) by name or group. */
export function isSampleNode(e: TauEvent): boolean {
  return isSampleEvent(e.name, e.group);
}

/** An event path: by group, or by a separator in its name. */
function isPathEvent(name: string, group: string): boolean {
  return callpathGroup(group) || (name.includes('=>') && SPLIT_RE.test(name));
}

/** Flat timers: what the main table shows. */
export function flatTimers(t: TauThreadProfile): TauEvent[] {
  return t.events.filter((e) => !isPathEvent(e.name, e.group) && !isSampleNode(e));
}

/** The parts of a name in display form (one part for a flat event), or null for a flat event. */
export function pathPartsOf(shown: string): string[] | null {
  if (!shown.includes('=>')) return null;
  const parts = shown.split(SPLIT_RE);
  if (parts.length === 1) return null;
  return parts.map((p) => p.trim());
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
export function sampleCounts(t: Pick<TauThreadProfile, 'metadata' | 'thread'>): { taken?: number; drops: DropCount[] } {
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

/** Hot sampled lines per context, from the `… => [CONTEXT] c => … => [SAMPLE] s` path entries, line by line. */
class HotLinesAcc {
  private readonly contexts = new Map<string, { samples: number; value: number; lines: Map<string, HotLine> }>();
  private readonly flatSamples: Array<{ shown: string; calls: number; excl: number; incl: number }> = [];
  private sawPaths = false;

  private ctx(name: string) {
    let c = this.contexts.get(name);
    if (!c) this.contexts.set(name, (c = { samples: 0, value: 0, lines: new Map() }));
    return c;
  }

  /** A flat event, by its name in display form. */
  flat(shown: string, calls: number, excl: number, incl: number): void {
    if (shown.startsWith('[CONTEXT]')) {
      const c = this.ctx(ownString(stripPrefix(shown, '[CONTEXT]')));
      c.samples += calls;
      c.value += incl;
    } else if (shown.startsWith('[SAMPLE]')) this.flatSamples.push({ shown: ownString(shown), calls, excl, incl });
  }

  /** An event path, by its parts. */
  path(parts: string[], calls: number, excl: number, incl: number): void {
    const last = parts[parts.length - 1];
    if (!last.startsWith('[SAMPLE]')) return;
    let ci = -1;
    for (let i = parts.length - 2; i >= 0; i--) if (parts[i].startsWith('[CONTEXT]')) { ci = i; break; }
    if (ci < 0) return;
    this.sawPaths = true;
    this.line(this.ctx(ownString(stripPrefix(parts[ci], '[CONTEXT]'))), stripPrefix(last, '[SAMPLE]'), calls, excl || incl);
  }

  private line(c: { lines: Map<string, HotLine> }, line: string, samples: number, value: number): void {
    let h = c.lines.get(line);
    if (!h) c.lines.set(line, (h = { name: ownString(line), samples: 0, value: 0, percent: 0 }));
    h.samples += samples;
    h.value += value;
  }

  result(limit: number): ContextHotLines[] {
    // Without event paths the samples cannot be split by context; with a single context they all belong to it.
    if (!this.sawPaths && this.flatSamples.length > 0) {
      const name = this.contexts.size === 1 ? [...this.contexts.keys()][0] : '(all contexts)';
      const c = this.ctx(name);
      for (const e of this.flatSamples) this.line(c, stripPrefix(e.shown, '[SAMPLE]'), e.calls, e.excl || e.incl);
    }
    const out: ContextHotLines[] = [];
    for (const [name, c] of this.contexts) {
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
}

/** Hot sampled lines per context, from the `… => [CONTEXT] c => … => [SAMPLE] s` path entries. */
export function hotLinesOf(t: TauThreadProfile, limit: number): ContextHotLines[] {
  const acc = new HotLinesAcc();
  for (const e of t.events) {
    const shown = displayName(e.name);
    const parts = pathPartsOf(shown);
    if (parts) acc.path(parts, e.calls, e.excl, e.incl);
    else acc.flat(shown, e.calls, e.excl, e.incl);
  }
  return acc.result(limit);
}

/** The event-path tree of a thread (report-tree.ts). */
export function callTreeOf(t: TauThreadProfile, hotLimit: number): CallTreeNode[] {
  const tree = new CallTreeBuilder();
  for (const e of t.events) {
    const shown = displayName(e.name);
    const parts = pathPartsOf(shown);
    if (parts) tree.path(parts, e.calls, e.subrs, e.excl, e.incl);
    else tree.flat({ name: shown, calls: e.calls, subrs: e.subrs, excl: e.excl, incl: e.incl });
  }
  return tree.finish(hotLimit);
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

/** What shapes one thread's section of the report. */
export interface ThreadOptions {
  sort: SortKey;
  callpath: boolean;
  hotLines: number;
  limit?: number;
}

/**
 * One thread's section of the report, made line by line (ThreadSink): keeps per flat timer its row,
 * the event-path tree when it is printed, the sampled lines and the user events; nothing per line
 * beyond that.
 */
export class ThreadReportBuilder implements ThreadSink {
  private readonly rows: ReportRow[] = [];
  /** Largest inclusive value of a flat event (the 100% of the %Time column). */
  private total = 0;
  private readonly tree: CallTreeBuilder | undefined;
  private readonly hot = new HotLinesAcc();
  private readonly users: TauUserEvent[] = [];
  /** The first lines of the thread (begin), for its name. */
  private head: { node: number; context: number; thread: number; metadata: Array<[string, string]> } | undefined;

  constructor(private readonly opts: ThreadOptions) {
    this.tree = opts.callpath ? new CallTreeBuilder() : undefined;
  }

  begin(head: { node: number; context: number; thread: number; metadata: Array<[string, string]> }): void {
    this.head = head;
  }

  event(name: string, calls: number, subrs: number, excl: number, incl: number, group: string): void {
    const path = isPathEvent(name, group);
    if (!path && incl > this.total) this.total = incl;
    const shown = displayName(name);
    const parts = pathPartsOf(shown);
    if (parts) {
      this.tree?.path(parts, calls, subrs, excl, incl);
      this.hot.path(parts, calls, excl, incl);
      return;
    }
    let flat: FlatValues | undefined;
    if (!path && !isSampleEvent(name, group)) {
      const row = { name: ownString(shown), group, calls, subrs, excl, incl, percent: 0 };
      this.rows.push(row);
      flat = row;
    }
    this.tree?.flat(flat ?? { name: ownString(shown), calls, subrs, excl, incl });
    this.hot.flat(shown, calls, excl, incl);
  }

  userEvent(u: TauUserEvent): void {
    this.users.push({ ...u, name: ownString(u.name) });
  }

  end(): void {}

  /** The finished section; `counts` are the thread's samples taken and dropped. */
  finish(label: string, counts: { taken?: number; drops: DropCount[] }): ThreadReport {
    const { total, opts } = this;
    for (const r of this.rows) r.percent = total > 0 ? (100 * r.incl) / total : 0;
    const rows = sortRows(this.rows, opts.sort);
    const asyncRegions = asyncRegionRows(rows, this.users);
    this.rows.length = 0;
    const t = this.head;
    const name = t ? threadNameOf(t) : undefined;
    const ids = t && t.node >= 0 ? { node: t.node, context: t.context, thread: t.thread, ...(name ? { name } : {}) } : {};
    return {
      label,
      ...ids,
      total,
      rows: opts.limit !== undefined ? rows.slice(0, opts.limit) : rows,
      rowCount: rows.length,
      ...(this.tree ? { callTree: this.tree.finish(opts.hotLines) } : {}),
      hotLines: this.hot.result(opts.hotLines),
      ...(counts.taken !== undefined ? { samplesTaken: counts.taken } : {}),
      drops: counts.drops,
      userEvents: this.users.map(userEventStats).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      asyncRegions,
    };
  }
}

/** The async regions among a thread's rows (in the rows' order, every row, before --limit): those
 * with a settle-time user event. */
function asyncRegionRows(rows: readonly ReportRow[], users: readonly TauUserEvent[]): AsyncRegionRow[] {
  const settle = new Map([...settleStatsOf(users).values()].map((s) => [displayName(s.region), s]));
  const out: AsyncRegionRow[] = [];
  for (const r of rows) {
    const s = settle.get(r.name);
    if (!s) continue;
    out.push({ name: r.name, calls: r.calls, excl: r.excl, incl: r.incl, settled: s.count, settleMean: s.mean, settleMax: s.max, unsettled: s.unsettled });
  }
  return out;
}

function threadReport(t: TauThreadProfile, label: string, opts: ThreadOptions, counts = sampleCounts(t)): ThreadReport {
  const b = new ThreadReportBuilder(opts);
  b.begin(t);
  for (const e of t.events) b.event(e.name, e.calls, e.subrs, e.excl, e.incl, e.group);
  for (const u of t.userEvents) b.userEvent(u);
  return b.finish(label, counts);
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
  const all = profile.threads[mi];
  const sel = opts.thread ?? { kind: 'all' };
  const common = threadOptions(opts);
  const chosen = selectThreads(all, sel);
  const wantMean = sel.kind === 'mean' || (sel.kind === 'all' && all.length > 1);
  return assembleReport({
    dir: profile.dir,
    metrics: profile.metrics,
    metric: profile.metrics[mi],
    sort: common.sort,
    firstMetadata: all[0]?.metadata,
    threads: chosen.map((t) => threadReport(t, threadLabel(t), common)),
    ...(wantMean ? { mean: threadReport(meanThread(all), 'mean', common, sumCounts(all)) } : {}),
  });
}

/** The options of each thread's section, defaults filled in. */
export function threadOptions(opts: ReportOptions): ThreadOptions {
  return { sort: opts.sort ?? 'excl', callpath: opts.callpath ?? false, hotLines: opts.hotLines ?? 5, limit: opts.limit };
}

/**
 * The report from its sections (made by buildReport, or by `hyprof report` as it reads the files).
 * `firstMetadata` is the first printed thread's, for the depth the paths were recorded to.
 */
export function assembleReport(r: {
  dir: string;
  metrics: string[];
  metric: string;
  sort: SortKey;
  firstMetadata?: Array<[string, string]>;
  threads: ThreadReport[];
  mean?: ThreadReport;
}): Report {
  const depth = Number(r.firstMetadata?.find(([k]) => k === 'HYPROF_CALLPATH_DEPTH' || k === 'TAU_CALLPATH_DEPTH')?.[1]);
  return {
    dir: r.dir,
    metric: r.metric,
    metrics: r.metrics,
    unit: /TIME/i.test(r.metric) ? 'msec' : 'counts',
    sort: r.sort,
    ...(Number.isFinite(depth) ? { callpathDepth: depth } : {}),
    threads: r.threads,
    ...(r.mean ? { mean: r.mean } : {}),
  };
}
