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
import { EventKind, type RawProcess, type RawThread } from '../samples/raw-model.js';
import type { ContextTree } from './assemble-tree.js';

export interface ContextValues {
  context: bigint;
  calls: number;
  subrs: number;
  /** Per metric, in the metric's unit. */
  excl: number[];
  incl: number[];
  /** Not entered on this thread: an ancestor of contexts that were. */
  derived: boolean;
}

export interface ThreadValues {
  /** Every context of the thread with its values, parents before children. (The index by context
   * and the lists of children are not returned: for millions of contexts they cost as much again.) */
  contexts: ContextValues[];
  /** Factor per metric by which a context's sample values are scaled (absent: 1). */
  sampleScale: Map<bigint, number[]>;
}

/** With `dropStatistics`, the thread's statistics are dropped once summed by context (the caller
 * needs them no more), before the rest of the values is built. */
export function threadValues(proc: RawProcess, tree: ContextTree, t: RawThread, dropStatistics = false): ThreadValues {
  const nm = proc.info.metrics.length;
  const byContext = new Map<bigint, ContextValues>();
  const zero = (): number[] => new Array<number>(nm).fill(0);
  const isParam = (c: bigint): boolean => proc.events[tree.context(c).event].kind === EventKind.PARAM;

  for (const s of t.stats) {
    let v = byContext.get(s.context);
    if (!v) byContext.set(s.context, (v = { context: s.context, calls: 0, subrs: 0, excl: zero(), incl: zero(), derived: false }));
    v.calls += s.calls;
    v.subrs += s.childCalls;
    for (let m = 0; m < nm; m++) {
      v.excl[m] += s.excl[m];
      v.incl[m] += s.incl[m];
    }
  }
  if (dropStatistics) t.stats = [];
  // The roots' measured time (the thread's), kept before the inclusive values are rebuilt.
  const measuredIncl = new Map<bigint, number[]>();
  for (const [c, v] of byContext) if (tree.context(c).parent === 0n) measuredIncl.set(c, [...v.incl]);

  // A specialised context's timer context (same parent, the base event), when the process has it;
  // without it the specialised context stands alone.
  const timerOf = (p: bigint): bigint => {
    const ctx = tree.context(p);
    return tree.child(ctx.parent, tree.base(ctx.event)) ?? p;
  };
  const isOverlay = (c: bigint): boolean => isParam(c) && timerOf(c) !== c;

  // Derived ancestors (and the timer contexts of specialised ones); each chain is walked once.
  const walked = new Set<bigint>();
  const derive = (c: bigint): void => {
    for (let x = c; x !== 0n && !walked.has(x); x = tree.context(x).parent) {
      walked.add(x);
      if (!byContext.has(x)) byContext.set(x, { context: x, calls: 0, subrs: 0, excl: zero(), incl: zero(), derived: true });
      if (isOverlay(x)) derive(timerOf(x));
    }
  };
  for (const c of [...byContext.keys()]) derive(c);
  for (const s of t.samples) if (s.count > 0) derive(s.context);

  // Samples in a context the thread has no time for: their time is the best this thread knows.
  const sampled = new Map<bigint, number[]>();
  for (const s of t.samples) {
    if (s.count === 0) continue;
    let v = sampled.get(s.context);
    if (!v) sampled.set(s.context, (v = zero()));
    for (let m = 0; m < nm; m++) v[m] += s.values[m];
  }
  for (const [c, v] of sampled) {
    const cv = byContext.get(c)!;
    if (cv.derived) cv.excl = [...v];
  }

  // Children of each context, a specialisation's children counted with its timer's.
  const kids = new Map<bigint, bigint[]>();
  const params = new Map<bigint, bigint[]>();
  const push = (m: Map<bigint, bigint[]>, k: bigint, c: bigint) => {
    const l = m.get(k);
    if (l) l.push(c);
    else m.set(k, [c]);
  };
  for (const c of byContext.keys()) {
    const parent = tree.context(c).parent;
    if (isOverlay(c)) {
      push(params, timerOf(c), c);
      continue;
    }
    if (parent !== 0n) push(kids, parent, c);
  }
  // Depth-first order from the roots, parents first; an explicit stack, not recursion, so that no
  // depth of nesting can overflow it. A context's own children come before its overlays' children.
  const order: bigint[] = [];
  const visit = (root: bigint): void => {
    const pending: Array<{ c: bigint; overlay: boolean }> = [{ c: root, overlay: false }];
    while (pending.length > 0) {
      const { c, overlay } = pending.pop()!;
      order.push(c);
      const next: Array<{ c: bigint; overlay: boolean }> = [];
      for (const k of kids.get(c) ?? []) next.push({ c: k, overlay: false });
      if (!overlay) for (const p of params.get(c) ?? []) next.push({ c: p, overlay: true });
      for (let i = next.length - 1; i >= 0; i--) pending.push(next[i]);
    }
  };
  for (const c of byContext.keys()) if (tree.context(c).parent === 0n && !isOverlay(c)) visit(c);

  // Inclusive values, bottom-up.
  for (let i = order.length - 1; i >= 0; i--) {
    const v = byContext.get(order[i])!;
    const own = kids.get(v.context) ?? [];
    const overlays = params.get(v.context) ?? [];
    const below = [...own, ...overlays.flatMap((p) => kids.get(p) ?? [])];
    for (let m = 0; m < nm; m++) {
      const children = below.reduce((s, k) => s + byContext.get(k)!.incl[m], 0);
      v.incl[m] = v.excl[m] + children;
      if (tree.context(v.context).parent === 0n && !v.derived) {
        // The root keeps the thread's measured time; what no timer accounts for is its own.
        v.incl[m] = Math.max(measuredIncl.get(v.context)![m], children);
        v.excl[m] = v.incl[m] - children;
      }
    }
    if (v.derived) v.subrs = below.reduce((s, k) => s + byContext.get(k)!.calls, 0);
  }

  // Sample scaling: each context's samples fit its own exclusive time.
  const sampleScale = new Map<bigint, number[]>();
  for (const [c, v] of sampled) {
    const cv = byContext.get(c)!;
    const budget = [...cv.excl];
    for (const p of params.get(c) ?? []) for (let m = 0; m < nm; m++) budget[m] -= byContext.get(p)!.excl[m];
    const scale = v.map((x, m) => (x > budget[m] ? Math.max(0, budget[m]) / x : 1));
    if (scale.some((f) => f < 1)) sampleScale.set(c, scale);
  }

  const contexts = new Array<ContextValues>(order.length);
  for (let i = 0; i < order.length; i++) contexts[i] = byContext.get(order[i])!;
  return { contexts, sampleScale };
}
