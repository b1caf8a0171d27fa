/**
 * What the viewer page asks for, answered from one profile held in memory. Every answer is bounded
 * (paged rows, children of one node, a pruned flame graph), so the page stays responsive on
 * profiles with thousands of threads and events: the server aggregates, the page shows.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { threadWords } from '../profile/thread-words.js';
import { displayName, threadLabel, type TauEvent, type TauProfile, type TauThreadProfile, type ThreadStackView } from '../profile/tau-model.js';
import { functionsOf } from '../report/report-functions.js';
import { rankNotes, RanksAcc, type RankSummary } from '../profile/mpi-ranks.js';
import { MpiShareAcc, mpiShareLine, threadTally } from '../analysis/mpi-share.js';
import { aggregateEvents, isStat, STATS, type Stat } from './aggregate.js';
import { flameGraph, type FlameNode } from './flame.js';
import { eventTree, isParamEvent, kindOf, sourceOf, splitPath, type EventTree, type TreeNode } from '../profile/event-tree.js';
import { SourceAccess } from './source-access.js';
import { eventAcrossThreads, eventChoices, spread } from '../report/event-threads.js';
import { meanThread, userEventStats } from '../report/report-data.js';
import { UserError } from '../base/errors.js';
import { frameLabel, type FrameRole } from './labels.js';
import { settleStatsOf, type SettleStats } from '../profile/settle-events.js';
import { blockQuantile, TOTAL, type ScaledProfile } from './scaled-profile.js';

/** A request the page got wrong: answered with this status and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** More fields of the answer beside `error` (the directories a refused source file may be confirmed under). */
    readonly more: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export type Query = URLSearchParams;

interface View {
  events: TauEvent[];
  /** One thread's complete stacks (statistics over threads use the [UNWIND] chains). */
  stacks?: ThreadStackView;
  tree?: EventTree;
  /** Settle time of the async regions, by region name in display form (a thread's, or pooled over
   * the threads for a statistic over threads). */
  settle: Map<string, SettleStats>;
}

/** Largest source file the viewer reads, in bytes. */
export const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

export interface NodeInfo {
  path: string;
  /** TAU's node name; `label` is what the page writes (labels.ts). */
  name: string;
  label: string;
  role: FrameRole;
  kind: string;
  calls: number;
  subrs: number;
  excl: number;
  incl: number;
  derived: boolean;
  childCount: number;
  source?: { file: string; line: number };
  /** An async region's settle time (start to settlement, microseconds), over all its instances on
   * the thread (or threads): a region's, not one path's. */
  settle?: SettleStats;
}

/** "Event on threads" answers kept for a profile of many threads (each read every thread file). */
const EVENTS_KEPT = 4;

export class ProfileApi {
  private cache = new Map<string, View>();
  /** The last EVENTS_KEPT event() answers of a ScaledProfile, by metric, kind and name. */
  private readonly eventsKept = new Map<string, unknown>();
  private sources: Map<string, string> | undefined;
  private readonly access: SourceAccess;
  /** The ranks of an MPI run (undefined for other profiles): threads are labelled by rank then. */
  private readonly ranks: RankSummary | undefined;

  /**
   * `sources`: the directories whose files may be shown (`--source-dir`, and those confirmed in the
   * page): a SourceAccess shared with the server, or the directories to allow.
   */
  constructor(
    readonly profile: TauProfile,
    sources: SourceAccess | string[] = [],
    /** A profile of many threads, folded when opened: its threads' events are read on demand (scaled-profile.ts). */
    private readonly scaled?: ScaledProfile,
  ) {
    this.access = sources instanceof SourceAccess ? sources : new SourceAccess(sources);
    // The ranks' main threads, one at a time (the summary keeps sets of ranks, not their records).
    const records = new RanksAcc();
    for (const t of profile.threads[0] ?? []) if (t.context === 0 && t.thread === 0) records.add({ node: t.node, attributes: t.metadata, source: threadLabel(t) });
    this.ranks = records.isMpi ? records.summary() : undefined;
  }

  /** `rank 3 · thread 1` for the ranks of an MPI run (the node is the rank), else TAU's n,c,t. */
  private label(t: Pick<TauThreadProfile, 'node' | 'context' | 'thread' | 'metadata'>): string {
    return threadWords(t, this.ranks !== undefined);
  }

  /** Thread `i` of a metric with its events: held, or read from its file (a ScaledProfile). */
  private threadAt(metric: number, i: number): TauThreadProfile {
    const t = this.profile.threads[metric][i];
    return this.scaled ? this.scaled.load(t) : t;
  }

  private metricIndex(q: Query): number {
    const m = q.get('metric');
    if (m === null || m === '') return 0;
    if (/^\d+$/.test(m) && +m < this.profile.metrics.length) return +m;
    const i = this.profile.metrics.indexOf(m);
    if (i < 0) throw new ApiError(400, `unknown metric "${m}"; metrics: ${this.profile.metrics.join(', ')}`);
    return i;
  }

  private threadKey(q: Query, metric: number): Stat | number {
    const t = q.get('thread') ?? 'mean';
    if (isStat(t)) return t;
    const n = this.profile.threads[metric].length;
    if (/^\d+$/.test(t) && +t < n) return +t;
    throw new ApiError(400, `unknown thread "${t}"; use ${STATS.join(', ')} or 0..${n - 1}`);
  }

  private view(metric: number, thread: Stat | number): View {
    const key = `${metric}|${thread}`;
    let v = this.cache.get(key);
    if (v) {
      this.cache.delete(key);
      this.cache.set(key, v);
      return v;
    }
    const threads = this.profile.threads[metric];
    const one = typeof thread === 'number' ? this.threadAt(metric, thread) : undefined;
    const stat = (s: Stat): TauEvent[] => (this.scaled ? this.scaled.stat(metric, s) : aggregateEvents(threads, s));
    const events = one ? one.events : stat(thread as Stat);
    const users = one ? one.userEvents : this.scaled ? this.scaled.folds[metric].users : meanThread(threads).userEvents;
    const settle = new Map([...settleStatsOf(users).values()].map((s) => [displayName(s.region), s]));
    v = { events, settle, ...(one?.stacks ? { stacks: one.stacks } : {}) };
    this.cache.set(key, v);
    if (this.cache.size > 24) this.cache.delete(this.cache.keys().next().value!);
    return v;
  }

  /** The event tree of a metric (by name) and thread (a statistic or an index), for the compare view. */
  treeFor(metric: string, thread: Stat | number): EventTree | undefined {
    const mi = this.profile.metrics.indexOf(metric);
    if (mi < 0) return undefined;
    if (typeof thread === 'number' && thread >= this.profile.threads[mi].length) return undefined;
    const v = this.view(mi, thread);
    v.tree ??= eventTree(v.events, v.stacks);
    return v.tree;
  }

  /** The metric a query names (index or name), as its name. */
  metricName(q: Query): string {
    return this.profile.metrics[this.metricIndex(q)];
  }

  /** The thread a query names: a statistic or a thread index. */
  threadOf(q: Query): Stat | number {
    return this.threadKey(q, this.metricIndex(q));
  }

  /** Label of a thread (by index) as the page shows it. */
  threadLabelAt(metric: string, index: number): string {
    return this.label(this.profile.threads[Math.max(0, this.profile.metrics.indexOf(metric))][index]);
  }

  /**
   * ParaProf's function window: one event (a timer or event path, or a sampled function) on every
   * thread, with mean, min, max and std; without a name, the names there are to choose from.
   */
  event(q: Query): unknown {
    const metric = this.metricIndex(q);
    const name = q.get('name');
    const choices = () => (this.scaled ? this.scaled.folds[metric].choices : eventChoices(this.profile.threads[metric]));
    if (!name) return { metric: this.profile.metrics[metric], ...choices() };
    let kind = q.get('kind');
    if (kind !== null && kind !== '' && kind !== 'timer' && kind !== 'function') throw new ApiError(400, `unknown kind "${kind}"; use timer or function`);
    // Many threads: each is read from its file once (the kind known beforehand from the names), and
    // the last few answers are kept: the page asks again for the event shown when it is redrawn.
    if (this.scaled && !kind) kind = choices().timers.includes(displayName(name)) ? 'timer' : choices().functions.includes(displayName(name)) ? 'function' : '';
    const key = `${metric}\u0000${kind ?? ''}\u0000${name}`;
    const kept = this.scaled ? this.eventsKept.get(key) : undefined;
    if (kept) return kept;
    try {
      const e = eventAcrossThreads(this.readingProfile(), metric, name, kind ? (kind as 'timer' | 'function') : undefined);
      const threads = this.profile.threads[metric];
      const answer = { ...e, threads: e.threads.map((t, i) => ({ ...t, key: String(i), label: this.label(threads[i]) })) };
      if (this.scaled) {
        this.eventsKept.set(key, answer);
        if (this.eventsKept.size > EVENTS_KEPT) this.eventsKept.delete(this.eventsKept.keys().next().value!);
      }
      return answer;
    } catch (e) {
      if (e instanceof UserError) throw new ApiError(404, e.message);
      throw e;
    }
  }

  /** The profile whose threads have their events: this one, or a ScaledProfile's read a thread at a time as they are asked for. */
  private readingProfile(): TauProfile {
    const scaled = this.scaled;
    if (!scaled) return this.profile;
    const reading = (ts: TauThreadProfile[]): TauThreadProfile[] =>
      new Proxy(ts, { get: (target, key, receiver) => (typeof key === 'string' && /^\d+$/.test(key) ? scaled.load(target[+key]) : Reflect.get(target, key, receiver)) });
    return { ...this.profile, threads: this.profile.threads.map(reading) };
  }

  /**
   * User events (TAU's atomic events: count, min, max, mean, std) per thread, and across threads:
   * all samples of all threads together, and the spread of the per-thread means.
   */
  userEvents(q: Query): unknown {
    const metric = this.metricIndex(q);
    const threads = this.profile.threads[metric];
    const thread = this.threadKey(q, metric);
    if (this.scaled) {
      // many threads: the chosen one read from its file, the rest from the fold
      const fold = this.scaled.folds[metric];
      const all = fold.users.map(userEventStats);
      const across = all
        .map((u) => {
          const m = fold.userMeans.get(u.name)!;
          const mean = m.sum / m.n;
          return { ...u, threads: m.n, meanOfThreads: { mean, min: m.min, max: m.max, std: Math.sqrt(Math.max(0, m.sumsq / m.n - mean * mean)) } };
        })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const chosen = typeof thread === 'number' ? this.threadAt(metric, thread) : undefined;
      return { thread: chosen ? this.label(chosen) : 'all threads', events: chosen ? chosen.userEvents.map(userEventStats) : all, across, threadCount: threads.length };
    }
    const rows = threads.map((t, i) => ({ key: String(i), label: this.label(t), events: t.userEvents.map(userEventStats) }));
    const all = meanThread(threads).userEvents.map(userEventStats);
    const across = all
      .map((u) => {
        const per = rows.map((r) => r.events.find((x) => x.name === u.name));
        const means = per.filter((x): x is NonNullable<typeof x> => x !== undefined).map((x) => x.mean);
        return { ...u, threads: means.length, meanOfThreads: spread(means) };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const chosen = typeof thread === 'number' ? rows[thread] : undefined;
    return { thread: chosen ? chosen.label : 'all threads', events: chosen ? chosen.events : all, across, threadCount: threads.length };
  }

  private settleOf(q: Query): Map<string, SettleStats> {
    const metric = this.metricIndex(q);
    return this.view(metric, this.threadKey(q, metric)).settle;
  }

  private treeOf(q: Query): EventTree {
    const metric = this.metricIndex(q);
    const v = this.view(metric, this.threadKey(q, metric));
    v.tree ??= eventTree(v.events, v.stacks);
    return v.tree;
  }

  /** The one MPI share (analysis/mpi-share.ts) of the first metric, as `hyprof report` prints it. */
  private mpiShare(): { mpiShare?: string } {
    if (this.scaled) {
      const share = this.scaled.mpiShare.result();
      return share ? { mpiShare: mpiShareLine(share) } : {};
    }
    const acc = new MpiShareAcc();
    for (const t of this.profile.threads[0] ?? []) {
      const tally = threadTally(t.node);
      for (const e of t.events) tally.event(displayName(e.name), e.group, e.calls, e.excl, e.incl);
      acc.add(tally);
    }
    const share = acc.result();
    return share ? { mpiShare: mpiShareLine(share) } : {};
  }

  summary(): unknown {
    const p = this.profile;
    let names = this.scaled?.eventNames0;
    if (!names) {
      const events0 = new Set<string>();
      for (const t of p.threads[0]) for (const e of t.events) events0.add(e.name);
      const list = [...events0];
      names = { count: list.length, hasCallpaths: list.some((n) => n.includes('=>')), hasSamples: list.some((n) => kindOf(n) === 'sample') };
    }
    return {
      dir: p.dir,
      metrics: p.metrics,
      threadCount: p.threads[0].length,
      eventCount: names.count,
      hasCallpaths: names.hasCallpaths,
      hasSamples: names.hasSamples,
      stats: STATS,
      // a profile of many threads: the main window shows rank ranges, a thread is read when opened
      ...(this.scaled ? { ranges: true } : {}),
      ...(this.ranks
        ? {
            ranks: {
              count: new Set(p.threads[0].map((t) => t.node)).size,
              ...(this.ranks.worldSize !== undefined ? { worldSize: this.ranks.worldSize } : {}),
              notes: rankNotes(this.ranks),
              ...this.mpiShare(),
            },
          }
        : {}),
    };
  }

  /**
   * Per-thread bars of the main window: exclusive value of the top events of the chosen kind
   * (timers, or sample nodes), the same events and colours on every row, the rest as "other".
   */
  threads(q: Query): unknown {
    const metric = this.metricIndex(q);
    const kind = q.get('kind') === 'samples' ? 'samples' : 'timers';
    // Timers' exclusive values add up to the thread's time; sample lines add up to the sampled
    // time. [CONTEXT] and [UNWIND] entries repeat their samples' values, so neither bar shows them.
    const wantKind = kind === 'samples' ? 'sample' : 'timer';
    const want = (e: TauEvent): boolean => !e.name.includes('=>') && !isParamEvent(e.group) && kindOf(e.name) === wantKind;
    const k = clampInt(q.get('top'), 10, 1, 40);
    const mean = this.view(metric, 'mean').events.filter(want).sort((a, b) => b.excl - a.excl);
    const top = mean.slice(0, k).map((e) => e.name);
    const topIndex = new Map(top.map((n, i) => [n, i]));
    const row = (events: TauEvent[]): { values: number[]; other: number; total: number } => {
      const values = top.map(() => 0);
      let other = 0;
      for (const e of events) {
        if (!want(e)) continue;
        const i = topIndex.get(e.name);
        if (i === undefined) other += e.excl;
        else values[i] += e.excl;
      }
      return { values, other, total: values.reduce((s, v) => s + v, other) };
    };
    const threads = this.profile.threads[metric];
    const offset = clampInt(q.get('offset'), 0, 0, threads.length);
    const limit = clampInt(q.get('limit'), 100, 1, 1000);
    // `labels=1`: the threads' names only (the thread selector), no thread read for its values
    const labelsOnly = q.get('labels') === '1';
    return {
      metric: this.profile.metrics[metric],
      kind,
      top: top.map(displayName),
      total: threads.length,
      offset,
      stats: STATS.map((s) => ({ key: s, label: s, ...row(this.view(metric, s).events) })),
      rows: threads
        .slice(offset, offset + limit)
        .map((t, i) => ({ key: String(offset + i), label: this.label(t), ...(labelsOnly ? {} : row(this.threadAt(metric, offset + i).events)) })),
      ...(this.scaled ? { ranges: this.ranges(metric, wantKind, top, q.get('timer')) } : {}),
    };
  }

  /**
   * The main window of many threads: blocks of consecutive threads (ranks), each with the mean of
   * the top events (the bar) and the min, quartiles (q1, median, q3: within QUANTILE_ACCURACY), mean
   * and max over its threads of one timer (`timer`, by its name as shown) or of the thread's total,
   * and the threads that have the min and the max. The mean is over the block's threads; min,
   * quartiles and max over those that have the timer (`threads`).
   */
  private ranges(metric: number, kind: 'timer' | 'sample', top: string[], timer: string | null): unknown {
    const scaled = this.scaled!;
    const fold = scaled.folds[metric];
    const threads = this.profile.threads[metric];
    const chosen = timer ? [...fold.blocks.keys()].find((n) => displayName(n) === timer) : TOTAL[kind];
    if (chosen === undefined) throw new ApiError(404, `no flat event "${timer}" in this profile`);
    const size = scaled.blockSize;
    const ranks = this.ranks !== undefined && threads.every((t) => t.context === 0 && t.thread === 0);
    const blocks = [];
    for (let b = 0; b * size < threads.length; b++) {
      const first = b * size;
      const last = Math.min(threads.length, first + size) - 1;
      const n = last - first + 1;
      const values = top.map((name) => (fold.blocks.get(name)?.[b]?.sum ?? 0) / n);
      const total = (fold.blocks.get(TOTAL[kind])?.[b]?.sum ?? 0) / n;
      const other = Math.max(0, total - values.reduce((s, v) => s + v, 0));
      const c = fold.blocks.get(chosen)?.[b];
      const label = ranks ? `ranks ${threads[first].node}–${threads[last].node}` : `${this.label(threads[first])} – ${this.label(threads[last])}`;
      blocks.push({
        first,
        last,
        label: first === last ? this.label(threads[first]) : label,
        threads: n,
        values,
        other,
        total,
        chosen: c
          ? { threads: c.n, mean: c.sum / n, min: c.min, q1: blockQuantile(c, 0.25), median: blockQuantile(c, 0.5), q3: blockQuantile(c, 0.75), max: c.max, minAt: String(c.minAt), minLabel: this.label(threads[c.minAt]), maxAt: String(c.maxAt), maxLabel: this.label(threads[c.maxAt]) }
          : { threads: 0, mean: 0, min: 0, q1: 0, median: 0, q3: 0, max: 0 },
      });
    }
    const timers = [...fold.blocks.keys()].filter((n) => !n.startsWith('\u0000') && kindOf(n) === kind).map(displayName).sort();
    return { block: size, timer: timer ?? null, timers, blocks };
  }

  /** Metadata attributes of one thread's file (TAU's and hyprof's), in file order. */
  metadata(q: Query): unknown {
    const metric = this.metricIndex(q);
    const thread = this.threadKey(q, metric);
    const t = this.threadAt(metric, typeof thread === 'number' ? thread : 0);
    return { thread: this.label(t), attributes: t.metadata };
  }

  /**
   * The statistics table: flat events (event paths too on request), sorted, searched, paged.
   * `kind=timers`: hyprof's and TAU's timers only (the page's default); `kind=samples`: the sampled
   * lines (`[SAMPLE]` events) by function; without it, every event as the profile has it.
   */
  table(q: Query): unknown {
    const metric = this.metricIndex(q);
    const thread = this.threadKey(q, metric);
    const { events, settle } = this.view(metric, thread);
    const paths = q.get('paths') === '1';
    const only = q.get('kind') ?? '';
    if (!['', 'timers', 'samples'].includes(only)) throw new ApiError(400, `unknown kind "${only}"; use timers or samples`);
    const search = (q.get('q') ?? '').toLowerCase();
    const sort = q.get('sort') ?? 'excl';
    if (!['name', 'calls', 'subrs', 'excl', 'incl', 'percall', 'settle'].includes(sort)) throw new ApiError(400, `unknown sort "${sort}"`);
    const asc = q.get('order') === 'asc';
    const base = events.reduce((m, e) => Math.max(m, e.incl), 0);
    let rows = events
      .filter((e) => paths || !e.name.includes('=>'))
      .map((e) => {
        const parts = splitPath(e.name);
        const last = parts.at(-1)!;
        const kind = kindOf(last);
        const l = frameLabel({ name: last, kind, group: e.group, parent: parts.length > 1 ? { name: parts.at(-2)! } : null });
        return { e, kind, l, name: displayName(e.name) };
      })
      .filter(({ kind }) => only === '' || (only === 'timers' ? kind === 'timer' : kind === 'sample'))
      .map(({ e, kind, l, name }) => ({
        name,
        label: l.label,
        role: l.role,
        ...(l.file !== undefined ? { file: l.file, line: l.line } : {}),
        group: e.group,
        kind,
        calls: e.calls,
        subrs: e.subrs,
        excl: e.excl,
        incl: e.incl,
        percall: e.calls > 0 ? e.incl / e.calls : 0,
        exclPct: base > 0 ? (100 * e.excl) / base : 0,
        inclPct: base > 0 ? (100 * e.incl) / base : 0,
        // the settle time is the region's (all its paths): on its flat row only
        ...(kind === 'timer' && !name.includes('=>') && settle.has(name) ? { settle: settle.get(name)! } : {}),
      }));
    if (search) rows = rows.filter((r) => r.name.toLowerCase().includes(search) || r.label.toLowerCase().includes(search));
    const key = sort as 'name' | 'calls' | 'subrs' | 'excl' | 'incl' | 'percall' | 'settle';
    // by settle time: its mean, the rows without one below every async region
    const settleMean = (r: (typeof rows)[number]) => ('settle' in r && r.settle ? r.settle.mean : -1);
    rows.sort((a, b) => {
      const c = key === 'name' ? a.name.localeCompare(b.name) : key === 'settle' ? settleMean(a) - settleMean(b) : (a[key] as number) - (b[key] as number);
      return asc ? c : -c;
    });
    const offset = clampInt(q.get('offset'), 0, 0, rows.length);
    const limit = clampInt(q.get('limit'), 100, 1, 2000);
    return { metric: this.profile.metrics[metric], thread: String(thread), total: rows.length, offset, base, settled: settle.size > 0, rows: rows.slice(offset, offset + limit) };
  }

  /** Children of one node of the event-path tree (the roots without a path), paged. */
  tree(q: Query): unknown {
    const tree = this.treeOf(q);
    const path = q.get('path');
    let list: TreeNode[];
    let node: TreeNode | undefined;
    if (path) {
      node = tree.byPath.get(path);
      if (!node) throw new ApiError(404, `no node "${path}" in this tree`);
      list = node.children;
    } else list = tree.roots;
    const offset = clampInt(q.get('offset'), 0, 0, list.length);
    const limit = clampInt(q.get('limit'), 200, 1, 2000);
    const settle = this.settleOf(q);
    return { node: node && info(node, settle), total: list.length, offset, children: list.slice(offset, offset + limit).map((n) => info(n, settle)) };
  }

  /** Nodes of the tree whose name contains the search text, with their paths, to expand to. */
  search(q: Query): unknown {
    const tree = this.treeOf(q);
    const s = (q.get('q') ?? '').toLowerCase();
    if (!s) return { total: 0, nodes: [] };
    const limit = clampInt(q.get('limit'), 100, 1, 1000);
    const found = tree.nodes.filter((n) => n.name.toLowerCase().includes(s) || frameLabel(n).label.toLowerCase().includes(s));
    found.sort((a, b) => b.incl - a.incl);
    const settle = this.settleOf(q);
    return { total: found.length, nodes: found.slice(0, limit).map((n) => info(n, settle)) };
  }

  /**
   * The samples by function (report/report-functions.ts): self and total per function, over all
   * contexts or in one context (`context`: its timer's name), sorted by `sort` (self | total).
   */
  functions(q: Query): unknown {
    const metric = this.metricIndex(q);
    const thread = this.threadKey(q, metric);
    const sort = q.get('sort') ?? 'self';
    if (sort !== 'self' && sort !== 'total') throw new ApiError(400, `unknown sort "${sort}"; use self or total`);
    const limit = clampInt(q.get('limit'), 200, 1, 5000);
    const { events } = this.view(metric, thread);
    const f = functionsOf({ node: 0, context: 0, thread: 0, metric: this.profile.metrics[metric], events, userEvents: [], metadata: [] }, sort);
    const context = q.get('context');
    const scope = context ? f.contexts.find((c) => c.context === context) : f.overall;
    if (!scope) throw new ApiError(404, `no sample context "${context}" in this thread`);
    const search = (q.get('q') ?? '').toLowerCase();
    const rows = search ? scope.rows.filter((r) => r.function.toLowerCase().includes(search)) : scope.rows;
    return {
      metric: this.profile.metrics[metric],
      thread: String(thread),
      sort,
      contexts: f.contexts.map((c) => ({ context: c.context, samples: c.samples, value: c.value })),
      scope: { ...scope, rows: rows.slice(0, limit), more: Math.max(0, rows.length - limit) },
    };
  }

  flame(q: Query): FlameNode {
    const tree = this.treeOf(q);
    const minFraction = Number(q.get('min') ?? '0.0005');
    const f = flameGraph(tree, {
      root: q.get('root') || undefined,
      minFraction: minFraction >= 0 && minFraction < 1 ? minFraction : 0.0005,
      maxNodes: clampInt(q.get('max'), 5000, 10, 50000),
    });
    if (!f) throw new ApiError(404, `no node "${q.get('root')}" in this tree`);
    return f;
  }

  /** Files named by SAMPLE / UNWIND nodes of this profile or by its stacks file: the only files the viewer reads. */
  private sourceFiles(): Map<string, string> {
    if (this.sources) return this.sources;
    // a ScaledProfile named them when it read its files (its threads hold no events)
    const s = new Map<string, string>(this.scaled?.sourceFiles ?? []);
    for (const threads of this.scaled ? [] : this.profile.threads)
      for (const t of threads)
        for (const e of t.events) {
          const last = splitPath(e.name).at(-1)!;
          const k = kindOf(last);
          if (k !== 'sample' && k !== 'unwind') continue;
          const src = sourceOf(last);
          if (src) s.set(src.file, src.file);
        }
    // and the frames of complete stacks (a stacks file), which the flame graph shows too
    for (const threads of this.profile.threads) for (const t of threads) for (const [, file] of t.stacks?.frames ?? []) if (file) s.set(file, file);
    this.sources = s;
    return s;
  }

  source(q: Query): unknown {
    const asked = q.get('file') ?? '';
    const line = clampInt(q.get('line'), 1, 0, 1e9);
    const around = clampInt(q.get('context'), 8, 0, 200);
    // The request only chooses among the files the profile names; the path read is the profile's.
    const file = this.sourceFiles().get(asked);
    if (file === undefined) throw new ApiError(403, `${asked}: not a source file of a sample in this profile`);
    // Only directories the user named or confirmed: the profile's metadata (CWD, Executable) is data
    // and only offered for confirmation (source-access.ts).
    const outside = (): ApiError => {
      const offers = this.access.offers(file, this.profile);
      const named = this.access.directories;
      return new ApiError(
        403,
        `${file}: not under a directory you named (${named.join(', ') || 'none yet'}); ` +
          (offers.length > 0 ? 'confirm its directory in the page, or ' : 'its directory is not on this machine or is never shown (/proc, /sys, /dev); ') +
          'hyprof view --source-dir DIR shows files under DIR',
        { confirm: offers },
      );
    };
    if (!this.access.allowsPath(file)) throw outside();
    let text: string;
    try {
      const real = realpathSync(file);
      if (!this.access.allowsRealPath(real)) throw outside();
      text = readSourceFile(file, real);
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new ApiError(404, `${file}: not readable here (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const lines = text.split('\n');
    const first = Math.max(1, line - around);
    const last = Math.min(lines.length, line + around);
    const out = [];
    for (let i = first; i <= last; i++) out.push({ line: i, text: lines[i - 1] });
    return { file, line, lines: out };
  }
}

/**
 * The text of a source file, opened without blocking (a FIFO planted under the name must not hang
 * the server) and checked on the open descriptor: a regular file, at most MAX_SOURCE_BYTES.
 */
function readSourceFile(file: string, real: string): string {
  const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ApiError(404, `${file}: not a regular file`);
    if (st.size > MAX_SOURCE_BYTES) throw new ApiError(413, `${file}: larger than ${MAX_SOURCE_BYTES} bytes, not shown`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function info(n: TreeNode, settle: Map<string, SettleStats>): NodeInfo {
  const src = n.kind === 'sample' || n.kind === 'unwind' ? sourceOf(n.name) : undefined;
  const settled = n.kind === 'timer' ? settle.get(n.name) : undefined;
  const l = frameLabel(n);
  return {
    path: n.path,
    name: n.name,
    label: l.label,
    role: l.role,
    kind: n.kind,
    calls: n.calls,
    subrs: n.subrs,
    excl: n.excl,
    incl: n.incl,
    derived: n.derived,
    childCount: n.children.length,
    ...(src ? { source: src } : {}),
    ...(settled ? { settle: settled } : {}),
  };
}

function clampInt(s: string | null, dflt: number, min: number, max: number): number {
  if (s === null || s === '' || !/^\d+$/.test(s)) return dflt;
  return Math.min(max, Math.max(min, Number(s)));
}
