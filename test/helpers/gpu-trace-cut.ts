/**
 * The GPU and the host over time, from a traced CUDA program (docs/gpu.md): per process, the time
 * from its first GPU activity or wait to its last, cut into four — the host waiting for the GPU
 * (its synchronisations) or not, the GPU busy (any kernel, copy or set on any of its streams) or
 * idle. Two shares follow from them: of the host's wait, how much the GPU was idle (the wait was
 * not for work the GPU was doing: launch latency, a synchronisation on nothing), and of the GPU's
 * idle time, how much the host was not waiting (the GPU starved while the host did other work).
 *
 * The profile keeps aggregates only; the overlap needs the intervals, which only the trace has.
 */
import type { TraceModel } from './trace-model.js';

/** OTF2_PARADIGM_CUDA: on a host thread's lane, a region of it is a synchronisation (docs/trace.md, "GPU"). */
const PARADIGM_CUDA = 5;

export interface GpuOverlap {
  /** The process (its lanes' process name). */
  process: string;
  /** Nanoseconds from the first GPU activity or host wait to the last. */
  span: number;
  hostWaitingGpuBusy: number;
  hostWaitingGpuIdle: number;
  hostNotWaitingGpuBusy: number;
  hostNotWaitingGpuIdle: number;
  /** Of the host's wait, the share with the GPU idle (0 with no wait). */
  idleShareOfWait: number;
  /** Of the GPU's idle time in the span, the share with the host not waiting (0 with no idle time). */
  notWaitingShareOfIdle: number;
}

/** Sorted, merged intervals: [start, end] pairs. */
function union(pairs: Array<[number, number]>): Array<[number, number]> {
  pairs.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of pairs) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

const length = (u: Array<[number, number]>): number => u.reduce((n, [s, e]) => n + (e - s), 0);

/** The length of the intersection of two merged interval lists. */
function intersection(a: Array<[number, number]>, b: Array<[number, number]>): number {
  let n = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const s = Math.max(a[i][0], b[j][0]);
    const e = Math.min(a[i][1], b[j][1]);
    if (e > s) n += e - s;
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return n;
}

/** One row per process with GPU lanes. */
export function gpuOverlap(model: TraceModel): GpuOverlap[] {
  const byProcess = new Map<string, { busy: Array<[number, number]>; wait: Array<[number, number]> }>();
  for (const lane of model.lanes) {
    const p = byProcess.get(lane.process) ?? { busy: [], wait: [] };
    for (let i = 0; i < lane.count; i++) {
      if (lane.gpu) {
        if (lane.depth[i] === 0) p.busy.push([lane.start[i], lane.end[i]]);
      } else if (model.defs.regions.get(lane.region[i])?.paradigm === PARADIGM_CUDA) p.wait.push([lane.start[i], lane.end[i]]);
    }
    byProcess.set(lane.process, p);
  }
  const rows: GpuOverlap[] = [];
  for (const [process, { busy, wait }] of byProcess) {
    if (busy.length === 0) continue;
    const b = union(busy);
    const h = union(wait);
    const first = Math.min(b[0][0], h.length ? h[0][0] : Infinity);
    const last = Math.max(b[b.length - 1][1], h.length ? h[h.length - 1][1] : -Infinity);
    const both = intersection(b, h);
    const busyN = length(b);
    const waitN = length(h);
    const span = last - first;
    const idleWaiting = waitN - both;
    const idleNotWaiting = Math.max(0, span - (busyN + waitN - both));
    rows.push({
      process,
      span,
      hostWaitingGpuBusy: both,
      hostWaitingGpuIdle: idleWaiting,
      hostNotWaitingGpuBusy: busyN - both,
      hostNotWaitingGpuIdle: idleNotWaiting,
      idleShareOfWait: waitN > 0 ? idleWaiting / waitN : 0,
      notWaitingShareOfIdle: idleWaiting + idleNotWaiting > 0 ? idleNotWaiting / (idleWaiting + idleNotWaiting) : 0,
    });
  }
  return rows;
}
