/**
 * The timeline's queries on a trace model: what a view of [t0, t1) at a width of `px` pixels shows,
 * without touching every event when zoomed out, and the profile of an interval.
 *
 * Range at a resolution. Per lane and depth the regions are intervals that never overlap, in time
 * order (trace-model.ts byDepth). Where there are many (more than PYRAMID_FROM), a summary pyramid
 * is built once: the run cut into 2^k bins (k ≤ 16, about one bin per two intervals), each holding
 * the time covered at that depth and the region that covers most of it alone; each coarser level
 * halves the bins. A query whose pixel is at least a finest bin answers from the finest level whose
 * bin is at least a pixel (so at most px blocks per lane and depth, whatever the trace's size);
 * a narrower query walks the intervals in view (binary search to the first), and merges what is
 * below a pixel into one block. A block says which region dominates it and how much of it is covered.
 */
import { regionName, type TraceModel } from './trace-model.js';

const PYRAMID_FROM = 4096;
const MAX_LEVEL_BITS = 16;

interface Pyramid {
  /** Bin width of the finest level, ns. */
  width: number;
  /** levels[0] finest; each: covered ns per bin, dominant region, its time. */
  cover: Float32Array[];
  dom: Int32Array[];
  domAmount: Float32Array[];
}

/** A drawn piece of a lane: one region instance (exact) or the intervals of a pixel or more merged. */
export interface Block {
  depth: number;
  start: number;
  end: number;
  region: number;
  /** 1 for one region instance; below 1: the share of the block covered by regions (merged). */
  fill: number;
  /** Regions merged into it (1 for an instance). */
  count: number;
}

export class TraceQuery {
  private pyramids = new Map<string, Pyramid | null>();

  constructor(readonly model: TraceModel) {}

  private pyramid(lane: number, depth: number): Pyramid | null {
    const key = `${lane}/${depth}`;
    if (this.pyramids.has(key)) return this.pyramids.get(key)!;
    const l = this.model.lanes[lane];
    const list = l.byDepth[depth];
    let p: Pyramid | null = null;
    if (list.length > PYRAMID_FROM) {
      const bits = Math.min(MAX_LEVEL_BITS, Math.ceil(Math.log2(list.length / 2)));
      const bins = 1 << bits;
      const { first, last } = this.model;
      const width = Math.max(1, (last - first) / bins);
      const cover = new Float32Array(bins);
      const dom = new Int32Array(bins).fill(-1);
      const domAmount = new Float32Array(bins);
      for (let i = 0; i < list.length; i++) {
        const k = list[i];
        const s = l.start[k] - first;
        const e = l.end[k] - first;
        const b0 = Math.min(bins - 1, Math.floor(s / width));
        const b1 = Math.min(bins - 1, Math.floor(e / width));
        for (let b = b0; b <= b1; b++) {
          const amt = Math.min(e, (b + 1) * width) - Math.max(s, b * width);
          if (amt <= 0) continue;
          cover[b] += amt;
          if (amt > domAmount[b]) {
            domAmount[b] = amt;
            dom[b] = l.region[k];
          }
        }
      }
      p = { width, cover: [cover], dom: [dom], domAmount: [domAmount] };
      for (let n = bins >> 1; n >= 1; n >>= 1) {
        const c0 = p.cover[p.cover.length - 1];
        const d0 = p.dom[p.dom.length - 1];
        const a0 = p.domAmount[p.domAmount.length - 1];
        const c = new Float32Array(n);
        const d = new Int32Array(n);
        const a = new Float32Array(n);
        for (let b = 0; b < n; b++) {
          c[b] = c0[2 * b] + c0[2 * b + 1];
          const left = a0[2 * b] >= a0[2 * b + 1];
          d[b] = left ? d0[2 * b] : d0[2 * b + 1];
          a[b] = left ? a0[2 * b] : a0[2 * b + 1];
        }
        p.cover.push(c);
        p.dom.push(d);
        p.domAmount.push(a);
      }
    }
    this.pyramids.set(key, p);
    return p;
  }

  /** Blocks of one lane in [t0, t1) at `pixel` ns per pixel, depth by depth. */
  laneBlocks(lane: number, t0: number, t1: number, pixel: number): Block[] {
    const l = this.model.lanes[lane];
    const out: Block[] = [];
    for (let depth = 0; depth < l.maxDepth; depth++) {
      const p = this.pyramid(lane, depth);
      if (p && pixel >= p.width) this.fromPyramid(p, depth, t0, t1, pixel, out);
      else this.exact(lane, depth, t0, t1, pixel, out);
    }
    return out;
  }

  private fromPyramid(p: Pyramid, depth: number, t0: number, t1: number, pixel: number, out: Block[]): void {
    // The finest level whose bin is at least a pixel: at most one block per pixel and depth.
    let level = Math.min(p.cover.length - 1, Math.ceil(Math.log2(pixel / p.width)));
    if (level < 0) level = 0;
    const w = p.width * 2 ** level;
    const cover = p.cover[level];
    const dom = p.dom[level];
    const first = this.model.first;
    const b0 = Math.max(0, Math.floor((t0 - first) / w));
    const b1 = Math.min(cover.length - 1, Math.floor((t1 - first) / w));
    let cur: Block | null = null;
    for (let b = b0; b <= b1; b++) {
      if (cover[b] <= 0) {
        cur = null;
        continue;
      }
      const fill = Math.min(1, cover[b] / w);
      const start = first + b * w;
      // Neighbouring bins of one region, both nearly full, are one block (one long region, typically).
      if (cur && cur.region === dom[b] && cur.fill > 0.98 && fill > 0.98 && cur.end === start) {
        cur.end = start + w;
        cur.count++;
        continue;
      }
      cur = { depth, start, end: start + w, region: dom[b], fill: Math.min(fill, 0.999), count: 2 };
      out.push(cur);
    }
  }

  private exact(lane: number, depth: number, t0: number, t1: number, pixel: number, out: Block[]): void {
    const l = this.model.lanes[lane];
    const list = l.byDepth[depth];
    // First interval ending after t0 (ends are in order at one depth).
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (l.end[list[mid]] <= t0) lo = mid + 1;
      else hi = mid;
    }
    let merged: Block | null = null;
    let mergedCover = 0;
    let domLen = 0;
    const flush = (): void => {
      if (!merged) return;
      merged.fill = merged.count === 1 ? 1 : Math.min(0.999, mergedCover / Math.max(merged.end - merged.start, 1e-9));
      out.push(merged);
      merged = null;
    };
    for (let i = lo; i < list.length; i++) {
      const k = list[i];
      const s = l.start[k];
      if (s >= t1) break;
      const e = l.end[k];
      const len = e - s;
      if (len >= pixel) {
        flush();
        out.push({ depth, start: s, end: e, region: l.region[k], fill: 1, count: 1 });
        continue;
      }
      // Below a pixel: joined to the block before when it starts within a pixel of its end.
      const m = merged as Block | null;
      if (m && s - m.end < pixel) {
        m.end = Math.max(m.end, e);
        m.count++;
        mergedCover += len;
        if (len > domLen) {
          domLen = len;
          m.region = l.region[k];
        }
      } else {
        flush();
        merged = { depth, start: s, end: e, region: l.region[k], fill: 1, count: 1 };
        mergedCover = len;
        domLen = len;
      }
    }
    flush();
  }

  /** The region instance on a lane at time t and depth (or the deepest at t), for hover. */
  at(lane: number, t: number, depth?: number): { interval: number; depth: number } | null {
    const l = this.model.lanes[lane];
    if (!l) return null;
    const depths = depth !== undefined ? [depth] : Array.from({ length: l.maxDepth }, (_, d) => l.maxDepth - 1 - d);
    for (const d of depths) {
      const list = l.byDepth[d];
      if (!list) continue;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (l.end[list[mid]] <= t) lo = mid + 1;
        else hi = mid;
      }
      if (lo < list.length && l.start[list[lo]] <= t) return { interval: list[lo], depth: d };
    }
    return null;
  }
}

/** The profile of an interval: per region and per call path, the time inside [t0, t1). */
export interface IntervalRow {
  name: string;
  /** Instances entered inside the interval. */
  calls: number;
  /** ns inside the interval, the region's own (exclusive) and with what it called (inclusive; a
   * recursive region counted once). */
  excl: number;
  incl: number;
}

export interface IntervalFlame {
  name: string;
  value: number;
  self: number;
  calls: number;
  children: IntervalFlame[];
}

export function intervalProfile(model: TraceModel, t0: number, t1: number, lanes?: number[]): { rows: IntervalRow[]; flame: IntervalFlame } {
  const rows = new Map<number, IntervalRow>();
  const root: IntervalFlame = { name: 'selection', value: 0, self: 0, calls: 0, children: [] };
  const childOf = new Map<IntervalFlame, Map<number, IntervalFlame>>();
  const child = (parent: IntervalFlame, region: number): IntervalFlame => {
    let m = childOf.get(parent);
    if (!m) childOf.set(parent, (m = new Map()));
    let c = m.get(region);
    if (!c) {
      c = { name: regionName(model, region), value: 0, self: 0, calls: 0, children: [] };
      m.set(region, c);
      parent.children.push(c);
    }
    return c;
  };
  for (const lane of model.lanes) {
    if (lanes && !lanes.includes(lane.index)) continue;
    const path: IntervalFlame[] = [root];
    const active = new Map<number, number>();
    const stackRegions: number[] = [];
    const clipped = (k: number): number => Math.max(0, Math.min(lane.end[k], t1) - Math.max(lane.start[k], t0));
    for (let k = 0; k < lane.count; ) {
      // Outside: starts at or after t1, or ends by t0 having started before it (an instance entered
      // inside the interval counts as a call even when it lasts no time).
      if (lane.start[k] >= t1 || (lane.start[k] < t0 && lane.end[k] <= t0)) {
        k = lane.next[k];
        continue;
      }
      const d = lane.depth[k];
      while (stackRegions.length > d) {
        const r = stackRegions.pop()!;
        active.set(r, active.get(r)! - 1);
      }
      path.length = d + 1;
      const r = lane.region[k];
      const node = child(path[d], r);
      path.push(node);
      const inside = clipped(k);
      let kids = 0;
      for (let c = k + 1; c < lane.next[k]; c = lane.next[c]) kids += clipped(c);
      const entered = lane.start[k] >= t0 ? 1 : 0;
      node.value += inside;
      node.self += inside - kids;
      node.calls += entered;
      let row = rows.get(r);
      if (!row) rows.set(r, (row = { name: regionName(model, r), calls: 0, excl: 0, incl: 0 }));
      row.calls += entered;
      row.excl += inside - kids;
      if (!active.get(r)) row.incl += inside;
      active.set(r, (active.get(r) ?? 0) + 1);
      stackRegions.push(r);
      k++;
    }
  }
  root.value = root.children.reduce((s, c) => s + c.value, 0);
  return { rows: [...rows.values()].sort((a, b) => b.excl - a.excl), flame: root };
}
