/**
 * The values of one thread's contexts, made to add up before anything is named (docs/assembly.md,
 * "Values add up"):
 *
 * - Every ancestor of a measured context is present. A context the thread never entered itself (an
 *   OpenMP worker's share of a region runs under the master's phases; a task runs under the context
 *   that created it) is *derived*: 0 calls, 0 exclusive, its children's sum inclusive.
 * - Inclusive values are rebuilt bottom-up: exclusive + the children's inclusive values. Time a frame
 *   measured but that is recorded under another context (a task run inside a barrier, recorded under
 *   its creating context; a Node async region recorded whole at settlement) is then counted once,
 *   where it is recorded. The thread's root keeps the thread's measured time; its exclusive value
 *   takes what no timer accounts for.
 * - A parameter specialisation is an overlay of its timer's context: its interval lies inside the
 *   timer's, and what starts inside it is a child of the timer too.
 * - Samples are a parallel view of a context's exclusive time: when a context's samples add up to more
 *   than that (a sample interval straddling the timer's start carries its parent's time), they are
 *   scaled down to it. A specialised context's samples fit its own exclusive time, the rest of its
 *   timer's samples what is left of the timer's.
 */
import { EventKind, noStats, type RawProcess, type RawThread } from '../samples/raw-model.js';
import type { ContextTree } from './assemble-tree.js';

/**
 * Every context of the thread with its values, as columns indexed by value (about 60 bytes per
 * context of one metric: an object per context with two arrays took about 215). `order` lists the
 * values parents first, depth first from the roots. (The lists of children are not returned: for
 * millions of contexts they cost as much again.)
 */
export interface ThreadValues {
  /** Value indices in order, parents before children. */
  order: Int32Array;
  /** Per value: the context's row (RawContexts). */
  row: Int32Array;
  calls: Float64Array;
  subrs: Float64Array;
  /** Per value and metric (value * nMetrics + metric), in the metric's unit. */
  excl: Float64Array;
  incl: Float64Array;
  /** Not entered on this thread: an ancestor of contexts that were (1), else 0. */
  derived: Uint8Array;
  /** Factor per metric by which a context's sample values are scaled, by context row (absent: 1). */
  sampleScale: Map<number, number[]>;
}

/** Columns of values that grow as contexts are added (doubling: a thread's count is not known ahead). */
class ValueColumns {
  n = 0;
  row = new Int32Array(16);
  calls = new Float64Array(16);
  subrs = new Float64Array(16);
  excl: Float64Array;
  incl: Float64Array;
  derived = new Uint8Array(16);

  constructor(private readonly nm: number) {
    this.excl = new Float64Array(16 * nm);
    this.incl = new Float64Array(16 * nm);
  }

  add(row: number, derived: boolean): number {
    if (this.n === this.row.length) {
      const cap = this.n * 2;
      const grow = <T extends Int32Array | Float64Array | Uint8Array>(a: T, size: number): T => {
        const b = new (a.constructor as new (n: number) => T)(size);
        b.set(a);
        return b;
      };
      this.row = grow(this.row, cap);
      this.calls = grow(this.calls, cap);
      this.subrs = grow(this.subrs, cap);
      this.excl = grow(this.excl, cap * this.nm);
      this.incl = grow(this.incl, cap * this.nm);
      this.derived = grow(this.derived, cap);
    }
    const v = this.n++;
    this.row[v] = row;
    this.derived[v] = derived ? 1 : 0;
    return v;
  }
}

/** Lists per value (children, overlays) in one array: value v's list is items[start[v] .. start[v + 1]). */
interface Lists {
  start: Int32Array;
  items: Int32Array;
}

/** Lists of `n` values from (owner, item) pairs given in order; an owner -1 is skipped. */
function lists(n: number, owners: Int32Array): Lists {
  const start = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) if (owners[v] >= 0) start[owners[v] + 1]++;
  for (let v = 0; v < n; v++) start[v + 1] += start[v];
  const items = new Int32Array(start[n]);
  const fill = start.slice(0, n);
  for (let v = 0; v < n; v++) if (owners[v] >= 0) items[fill[owners[v]]++] = v;
  return { start, items };
}

/** With `dropStatistics`, the thread's statistics are dropped once summed by context (the caller
 * needs them no more), before the rest of the values is built. */
export function threadValues(proc: RawProcess, tree: ContextTree, t: RawThread, dropStatistics = false): ThreadValues {
  const nm = proc.info.metrics.length;
  const nc = proc.contexts.size;
  const cols = new ValueColumns(nm);
  /** Value index by context row, -1 when the thread has none (yet). */
  const slot = new Int32Array(nc).fill(-1);
  const isParam = (r: number): boolean => proc.events[tree.event(r)].kind === EventKind.PARAM;

  const stats = t.stats;
  for (let i = 0; i < stats.length; i++) {
    const r = stats.row[i];
    let v = slot[r];
    if (v < 0) slot[r] = v = cols.add(r, false);
    cols.calls[v] += stats.calls[i];
    cols.subrs[v] += stats.childCalls[i];
    for (let m = 0; m < nm; m++) {
      cols.excl[v * nm + m] += stats.excl[i * nm + m];
      cols.incl[v * nm + m] += stats.incl[i * nm + m];
    }
  }
  if (dropStatistics) t.stats = noStats(proc.contexts, nm);
  const measured = cols.n;

  // A specialised context's timer context (same parent, the base event), when the process has it;
  // without it the specialised context stands alone.
  const timerOf = (r: number): number => {
    const c = tree.child(tree.parent(r), tree.base(tree.event(r)));
    return c >= 0 ? c : r;
  };
  const isOverlay = (r: number): boolean => isParam(r) && timerOf(r) !== r;

  // Derived ancestors (and the timer contexts of specialised ones); each chain is walked once.
  const walked = new Uint8Array(nc);
  const derive = (r: number): void => {
    for (let x = r; x >= 0 && walked[x] === 0; x = tree.parent(x)) {
      walked[x] = 1;
      if (slot[x] < 0) slot[x] = cols.add(x, true);
      if (isOverlay(x)) derive(timerOf(x));
    }
  };
  for (let v = 0; v < measured; v++) derive(cols.row[v]);
  for (const s of t.samples) if (s.count > 0) derive(tree.row(s.context));

  // Samples in a context the thread has no time for: their time is the best this thread knows.
  const sampled = new Map<number, number[]>();
  for (const s of t.samples) {
    if (s.count === 0) continue;
    const r = tree.row(s.context);
    let v = sampled.get(r);
    if (!v) sampled.set(r, (v = new Array<number>(nm).fill(0)));
    for (let m = 0; m < nm; m++) v[m] += s.values[m];
  }
  for (const [r, v] of sampled) {
    const cv = slot[r];
    if (cols.derived[cv]) for (let m = 0; m < nm; m++) cols.excl[cv * nm + m] = v[m];
  }

  // Children of each context, a specialisation's children counted with its timer's.
  const n = cols.n;
  const { row, calls, subrs, excl, incl, derived } = cols;
  const parentOf = new Int32Array(n).fill(-1);
  const timerOfValue = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) {
    const r = row[v];
    if (isOverlay(r)) timerOfValue[v] = slot[timerOf(r)];
    else if (tree.parent(r) >= 0) parentOf[v] = slot[tree.parent(r)];
  }
  const kids = lists(n, parentOf);
  const params = lists(n, timerOfValue);

  // Depth-first order from the roots, parents first; an explicit stack, not recursion, so that no
  // depth of nesting can overflow it. A context's own children come before its overlays' children.
  // (A pending entry is value * 2 + 1 for an overlay.)
  const order = new Int32Array(n);
  let ordered = 0;
  const pending: number[] = [];
  const next: number[] = [];
  for (let root = 0; root < n; root++) {
    if (tree.parent(row[root]) >= 0 || timerOfValue[root] >= 0) continue;
    pending.push(root * 2);
    while (pending.length > 0) {
      const e = pending.pop()!;
      const c = e >> 1;
      order[ordered++] = c;
      next.length = 0;
      for (let k = kids.start[c]; k < kids.start[c + 1]; k++) next.push(kids.items[k] * 2);
      if ((e & 1) === 0) for (let k = params.start[c]; k < params.start[c + 1]; k++) next.push(params.items[k] * 2 + 1);
      for (let i = next.length - 1; i >= 0; i--) pending.push(next[i]);
    }
  }

  // Inclusive values, bottom-up: the children are the context's own, then its overlays' children.
  for (let i = ordered - 1; i >= 0; i--) {
    const v = order[i];
    const root = tree.parent(row[v]) < 0 && !derived[v];
    for (let m = 0; m < nm; m++) {
      let children = 0;
      for (let k = kids.start[v]; k < kids.start[v + 1]; k++) children += incl[kids.items[k] * nm + m];
      for (let q = params.start[v]; q < params.start[v + 1]; q++) {
        const p = params.items[q];
        for (let k = kids.start[p]; k < kids.start[p + 1]; k++) children += incl[kids.items[k] * nm + m];
      }
      // The root keeps the thread's measured time (still in incl here); what no timer accounts for is its own.
      if (root) {
        incl[v * nm + m] = Math.max(incl[v * nm + m], children);
        excl[v * nm + m] = incl[v * nm + m] - children;
      } else if (timerOfValue[v] >= 0) {
        // A specialisation keeps its measured time too: its timer's first parameter covers the whole
        // call (docs/design-notes.md), children started before it included, which run under the
        // timer's own context, not the specialisation's.
        incl[v * nm + m] = Math.max(incl[v * nm + m], excl[v * nm + m] + children);
      } else incl[v * nm + m] = excl[v * nm + m] + children;
    }
    if (derived[v]) {
      let below = 0;
      for (let k = kids.start[v]; k < kids.start[v + 1]; k++) below += calls[kids.items[k]];
      for (let q = params.start[v]; q < params.start[v + 1]; q++) {
        const p = params.items[q];
        for (let k = kids.start[p]; k < kids.start[p + 1]; k++) below += calls[kids.items[k]];
      }
      subrs[v] = below;
    }
  }

  // Sample scaling: each context's samples fit its own exclusive time.
  const sampleScale = new Map<number, number[]>();
  for (const [r, v] of sampled) {
    const cv = slot[r];
    const budget = Array.from(excl.subarray(cv * nm, cv * nm + nm));
    for (let q = params.start[cv]; q < params.start[cv + 1]; q++) {
      const p = params.items[q];
      for (let m = 0; m < nm; m++) budget[m] -= excl[p * nm + m];
    }
    // A metric the samples hold none of (x = 0, a count such as page faults) has nothing to scale,
    // also where the parameters' own counts exceed the timer's (budget < 0: 0 / 0 would be NaN).
    const scale = v.map((x, m) => (x > 0 && x > budget[m] ? Math.max(0, budget[m]) / x : 1));
    if (scale.some((f) => f < 1)) sampleScale.set(r, scale);
  }

  return { order: order.subarray(0, ordered), row, calls, subrs, excl, incl, derived, sampleScale };
}
