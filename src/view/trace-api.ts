/**
 * The viewer's timeline API, on the run's trace (src/trace/): the lanes, range queries at the page's
 * resolution (only what a view shows: blocks merged below a pixel, messages, collectives, task
 * suspensions and samples in the range, each list bounded), a region instance under the pointer, and
 * the profile of a selected interval. Times in the API are ns after the trace's clock offset.
 */
import { ApiError, type Query } from './api.js';
import { sampleChain } from '../export/export-chrome.js';
import { intervalProfile, TraceQuery } from '../trace/trace-query.js';
import { laneLabel, regionName, traceNotes, type TraceModel } from '../trace/trace-model.js';
import { buildTraceReport, type TraceReport } from '../report/report-trace.js';

/** At most this many messages, collectives, suspensions or sample ticks per answer (evenly thinned). */
const LIST_LIMIT = 4000;

function num(q: Query, key: string, fallback?: number): number {
  const v = q.get(key);
  if (v === null || v === '') {
    if (fallback !== undefined) return fallback;
    throw new ApiError(400, `give ${key}`);
  }
  const n = Number(v);
  if (!Number.isFinite(n)) throw new ApiError(400, `${key}=${v}: not a number`);
  return n;
}

/** Every k-th item so at most `limit` remain; with the count before thinning. */
function thin<T>(items: T[], limit: number): { items: T[]; total: number } {
  if (items.length <= limit) return { items, total: items.length };
  const step = items.length / limit;
  const out: T[] = [];
  for (let i = 0; i < limit; i++) out.push(items[Math.floor(i * step)]);
  return { items: out, total: items.length };
}

export class TraceApi {
  private query: TraceQuery;
  private report: TraceReport | undefined;

  constructor(readonly model: TraceModel) {
    this.query = new TraceQuery(model);
  }

  summary(): unknown {
    const m = this.model;
    const used = new Set<number>();
    for (const l of m.lanes) for (let k = 0; k < l.count; k++) used.add(l.region[k]);
    return {
      anchor: m.anchor,
      first: m.first,
      last: m.last,
      offset: m.defs.clock.offset,
      lanes: m.lanes.map((l) => ({ index: l.index, label: laneLabel(l), process: l.process, rank: l.rank, thread: l.thread, gpu: l.gpu, depth: l.maxDepth, regions: l.count })),
      regions: Object.fromEntries([...used].map((r) => [r, { name: regionName(m, r), group: m.defs.regions.get(r)?.group ?? '' }])),
      messages: m.messages.length,
      collectives: m.collectives.length,
      notes: traceNotes(m),
    };
  }

  range(q: Query): unknown {
    const t0 = num(q, 't0', this.model.first);
    const t1 = num(q, 't1', this.model.last);
    const px = Math.max(1, Math.min(num(q, 'px', 1000), 10000));
    if (!(t1 > t0)) throw new ApiError(400, 't1 must be after t0');
    const pixel = (t1 - t0) / px;
    const m = this.model;
    const inRange = (a: number, b: number): boolean => Math.max(a, b) >= t0 && Math.min(a, b) <= t1;
    const lanes = m.lanes.map((l) => {
      const blocks = this.query.laneBlocks(l.index, t0, t1, pixel);
      // Samples: one tick per pixel at most.
      let lo = 0;
      let hi = l.sampleTime.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (l.sampleTime[mid] < t0) lo = mid + 1;
        else hi = mid;
      }
      const ticks: number[] = [];
      let lastPx = -1;
      for (let i = lo; i < l.sampleTime.length && l.sampleTime[i] < t1; i++) {
        const p = Math.floor((l.sampleTime[i] - t0) / pixel);
        if (p !== lastPx) ticks.push(l.sampleTime[i]);
        lastPx = p;
      }
      // Flat: depth, start, end, region, fill, count per block (small JSON for many blocks).
      const flat: number[] = [];
      for (const b of blocks) flat.push(b.depth, b.start, b.end, b.region, +b.fill.toFixed(3), b.count);
      return { index: l.index, blocks: flat, samples: ticks };
    });
    const msgs = thin(
      m.messages.filter((x) => inRange(x.send.time, x.recv.time)),
      LIST_LIMIT,
    );
    const colls = thin(
      m.collectives.filter((c) => c.members.some((x) => inRange(x.enter, x.leave))),
      LIST_LIMIT,
    );
    const susp: Array<[number, number, number, number]> = [];
    for (const task of m.tasks) {
      for (let i = 1; i < task.pieces.length; i++) {
        const a = m.pieces[task.pieces[i - 1]];
        const b = m.pieces[task.pieces[i]];
        if (inRange(a.end, b.start)) susp.push([a.lane, a.end, b.lane, b.start]);
      }
    }
    const suspensions = thin(susp, LIST_LIMIT);
    return {
      t0,
      t1,
      px,
      lanes,
      messages: msgs.items.map((x) => [x.send.lane, x.send.time, x.recv.lane, x.recv.time, x.bytes, x.tag]),
      messageTotal: msgs.total,
      collectives: colls.items.map((c) => ({ op: c.op, region: c.members[0]?.region ?? -1, members: c.members.map((x) => [x.lane, x.enter, x.leave]) })),
      collectiveTotal: colls.total,
      suspensions: suspensions.items,
      suspensionTotal: suspensions.total,
    };
  }

  /** The region instance under the pointer: name, times, parameters, and what lies around it. */
  at(q: Query): unknown {
    const lane = num(q, 'lane');
    const t = num(q, 't');
    const depth = q.get('depth') === null ? undefined : num(q, 'depth');
    const l = this.model.lanes[lane];
    if (!l) throw new ApiError(404, `no lane ${lane}`);
    const hit = this.query.at(lane, t, depth);
    if (!hit) return { lane: laneLabel(l), t, none: true };
    const k = hit.interval;
    const def = this.model.defs.regions.get(l.region[k]);
    // What ran there: the first sample at or after t inside the instance, else the last one before t.
    let lo = 0;
    let hi = l.sampleTime.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (l.sampleTime[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    const within = (i: number): boolean => i >= 0 && i < l.sampleTime.length && l.sampleTime[i] >= l.start[k] && l.sampleTime[i] <= l.end[k];
    const si = within(lo) ? lo : within(lo - 1) ? lo - 1 : -1;
    const sample = si >= 0 ? sampleChain(this.model, l.sampleContext[si]) : undefined;
    return {
      lane: laneLabel(l),
      depth: hit.depth,
      name: regionName(this.model, l.region[k]),
      group: def?.group ?? '',
      file: def?.file || undefined,
      line: def?.line || undefined,
      start: l.start[k],
      end: l.end[k],
      duration: l.end[k] - l.start[k],
      params: l.attrs.get(k),
      sample,
    };
  }

  /** What `hyprof report --trace` finds (wait states, task problems, phase outliers), for the page
   * to list and zoom to; computed once. */
  findings(): unknown {
    this.report ??= buildTraceReport(this.model);
    const r = this.report;
    return { waitStates: r.waitStates.slice(0, 50), taskSuspensions: r.taskSuspensions, taskProblems: r.taskProblems, phases: r.phases };
  }

  profile(q: Query): unknown {
    const t0 = num(q, 't0');
    const t1 = num(q, 't1');
    if (!(t1 > t0)) throw new ApiError(400, 't1 must be after t0');
    const lanesParam = q.get('lanes');
    const lanes = lanesParam ? lanesParam.split(',').map(Number) : undefined;
    return { t0, t1, ...intervalProfile(this.model, t0, t1, lanes) };
  }
}
