/**
 * The GPU's time cut by the host's waits, computed from a traced run's lanes (every kernel, copy and
 * set on the GPU streams' lanes; every synchronisation on the host threads'): the test's second
 * opinion on the cut the resolve makes from the CUDA layer's bounded sets (src/base/intervals.ts,
 * native/cuda/spans.c), which `report --gpu` prints.
 */
import { gpuCut, union, type GpuCut, type Interval } from '../../src/base/intervals.js';
import type { TraceModel } from '../../src/trace/trace-model.js';

/** OTF2_PARADIGM_CUDA: on a host thread's lane, a region of it is a synchronisation (docs/trace.md, "GPU"). */
const PARADIGM_CUDA = 5;

/** Per process name, its cut. */
export function traceGpuCut(model: TraceModel): Map<string, GpuCut> {
  const byProcess = new Map<string, { busy: Interval[]; wait: Interval[] }>();
  for (const lane of model.lanes) {
    const p = byProcess.get(lane.process) ?? { busy: [], wait: [] };
    for (let i = 0; i < lane.count; i++) {
      if (lane.gpu) {
        if (lane.depth[i] === 0) p.busy.push([lane.start[i], lane.end[i]]);
      } else {
        // A synchronisation the host waited in (in cudaStreamWaitEvent the GPU's stream waits, not the host).
        const r = model.defs.regions.get(lane.region[i]);
        if (r?.paradigm === PARADIGM_CUDA && r.name !== '[GPU] [CUDA stream wait event]') p.wait.push([lane.start[i], lane.end[i]]);
      }
    }
    byProcess.set(lane.process, p);
  }
  const out = new Map<string, GpuCut>();
  for (const [process, { busy, wait }] of byProcess) {
    const cut = gpuCut(union(busy), union(wait));
    if (cut) out.set(process, cut);
  }
  return out;
}
