/**
 * The CUDA section (tag 14, docs/raw-format.md): what the CUDA layer (native/cuda/,
 * libhyprof_cuda.so) aggregated from CUPTI's activity records, one entry per kernel, copy, set or
 * synchronisation name on one GPU stream launched from one host context: calls, time on the run's
 * clock, bytes, the first launch's grid and block. Assembled into GPU threads and `[GPU]` children of
 * the launching contexts by src/resolve/assemble-gpu.ts.
 */
import type { Cursor } from './cursor.js';
import { GpuKind, NO_THREAD, type GpuSpans, type RawContexts, type RawCuda, type RawGpuRecord } from './raw-model.js';

export { GpuKind, NO_THREAD };
export type { RawCuda, RawGpuRecord };

export function readCuda(c: Cursor, contexts: RawContexts): RawCuda {
  const droppedByCupti = c.u64n('records CUPTI dropped');
  const uncorrelated = c.u64n('uncorrelated GPU records');
  const n = c.count('GPU records', 4 + 4 + 16 + 8 + 11 * 8 + 24);
  const records: RawGpuRecord[] = [];
  for (let i = 0; i < n; i++) {
    const kat = c.pos;
    const kind = c.u32('a GPU record kind');
    if (kind < 1 || kind > 4) c.fail(`GPU record of kind ${kind} (1 to 4 expected)`, kat);
    const name = c.str('a GPU record name');
    const device = c.u32('a GPU device');
    const context = c.u32('a GPU context');
    const stream = c.u32('a GPU stream');
    const thread = c.u32('a launching thread');
    const hat = c.pos;
    const hostContext = c.u64('a launching context');
    if (hostContext !== 0n && !contexts.has(hostContext)) c.fail(`GPU record launched in context ${hostContext}, which is not in CONTEXTS`, hat);
    const count = c.u64n('a GPU record count');
    const ns = c.u64n('a GPU record time');
    const nsMin = c.u64n('a GPU record minimum');
    const nsMax = c.u64n('a GPU record maximum');
    const bytes = c.u64n('a GPU record byte count');
    const bytesMin = c.u64n('a GPU record smallest byte count');
    const bytesMax = c.u64n('a GPU record largest byte count');
    const firstStart = c.u64('a GPU record first start');
    const lastEnd = c.u64('a GPU record last end');
    // Sums of squares are kept as doubles (TAU's user events hold them so): no exactness to check.
    const us2 = Number(c.u64('a GPU record sum of squares'));
    const bytes2 = Number(c.u64('a GPU record sum of squared bytes'));
    const grid: [number, number, number] = [c.u32('grid x'), c.u32('grid y'), c.u32('grid z')];
    const block: [number, number, number] = [c.u32('block x'), c.u32('block y'), c.u32('block z')];
    records.push({ kind, name, device, context, stream, thread, hostContext, count, ns, nsMin, nsMax, bytes, bytesMin, bytesMax, firstStart, lastEnd, us2, bytes2, grid, block });
  }
  const droppedByHyprof = c.u64n('GPU records hyprof dropped');
  // Added later, at the section's end: a section without it (an older layer) has none to say.
  const notTraced = c.pos < c.end ? c.u64n('GPU records not in the trace') : 0;
  const spans = c.pos < c.end ? readSpans(c) : undefined;
  c.done();
  return { records, droppedByCupti, uncorrelated, droppedByHyprof, notTraced, ...(spans ? { spans } : {}) };
}

/** When the GPU was busy and the host waited (native/cuda/spans.c): what was added up, and the two
 * sets of disjoint intervals after it. */
function readSpans(c: Cursor): GpuSpans {
  const whole = c.u32('whether the GPU spans are whole') === 1;
  const first = c.u64n('the first GPU span start');
  const settled = c.u64n('the time the GPU spans are added up to');
  const parts: [number, number, number, number] = [c.u64n('a settled part'), c.u64n('a settled part'), c.u64n('a settled part'), c.u64n('a settled part')];
  const late = c.u64n('the late GPU span time');
  const set = (what: string): Array<[number, number]> => {
    const n = c.count(what, 16);
    const intervals: Array<[number, number]> = [];
    for (let i = 0; i < n; i++) {
      const at = c.pos;
      const s = c.u64n(`a start of the ${what}`);
      const e = c.u64n(`an end of the ${what}`);
      if (e < s || (i > 0 && s < intervals[i - 1][1]) || s < settled) c.fail(`${what}: interval ${i} is not after the one before it and the settled time, or ends before it starts`, at);
      intervals.push([s, e]);
    }
    return intervals;
  };
  const busy = set('GPU busy spans');
  const wait = set('host wait spans');
  return { whole, first, settled, parts, late, busy, wait };
}
