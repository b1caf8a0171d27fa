/**
 * The FOLD section (tag 13, docs/raw-format.md): what the runtime recorded for HYPROF_FOLD, per
 * thread and per series: the instances of the folded timers (event, start, duration, the extra
 * metrics over the instance) and the samples taken inside them (the instance's thread and start,
 * the offset from that start, the innermost context and program counters, the extra metrics from the
 * instance's start). Written by native/core/fold.c; folded by src/resolve/fold-build.ts.
 */
import type { Cursor } from './cursor.js';
import type { RawContexts, RawEvent, RawFold, RawFoldInstance, RawFoldSample, RawFoldSeries } from './raw-model.js';

export type { RawFold, RawFoldInstance, RawFoldSample, RawFoldSeries };

const UNKNOWN = 0xffff_ffff_ffff_ffffn;

export function readFold(c: Cursor, nMetrics: number, events: RawEvent[], contexts: RawContexts): RawFold {
  const layout = c.u32('the FOLD layout');
  if (layout !== 1) c.fail(`FOLD layout ${layout} (1 expected)`, c.pos - 4);
  const nSeries = c.count('fold patterns', 4);
  if (nSeries > 16) c.fail(`${nSeries} fold patterns (at most 16)`, c.pos - 4);
  const patterns: string[] = [];
  for (let i = 0; i < nSeries; i++) patterns.push(c.str(`fold pattern ${i}`));
  const instanceCapacity = c.u32('the fold instance capacity');
  const sampleCapacity = c.u32('the fold sample capacity');
  const extraAt = c.pos;
  const extra = c.u32('the number of extra metrics');
  if (extra !== nMetrics - 1) c.fail(`${extra} extra metrics in FOLD, the file measures ${nMetrics - 1}`, extraAt);
  const nThreads = c.count('fold threads', 4);
  const threads = new Map<number, RawFoldSeries[]>();
  for (let t = 0; t < nThreads; t++) {
    const at = c.pos;
    const index = c.u32('a fold thread index');
    if (threads.has(index)) c.fail(`fold records of thread ${index} appear twice`, at);
    const list: RawFoldSeries[] = [];
    for (let s = 0; s < nSeries; s++) {
      const lostInstances = c.u64n('fold instances lost');
      const lostSamples = c.u64n('fold samples lost');
      const ni = c.count('fold instances', 20 + 8 * extra);
      const instances: RawFoldInstance[] = [];
      for (let i = 0; i < ni; i++) {
        const eat = c.pos;
        const event = c.u32('a fold instance event');
        if (event >= events.length) c.fail(`fold instance of event ${event}, which does not exist`, eat);
        const start = c.u64('a fold instance start');
        const duration = c.u64f('a fold instance duration');
        const deltas: number[] = [];
        for (let m = 0; m < extra; m++) deltas.push(c.u64f('a fold instance metric'));
        instances.push({ event, start, duration, deltas });
      }
      const ns = c.count('fold samples', 32 + 8 * extra);
      const samples: RawFoldSample[] = [];
      for (let i = 0; i < ns; i++) {
        const owner = c.u32('a fold sample thread');
        const instanceStart = c.u64('a fold sample instance start');
        const offset = c.u64f('a fold sample offset');
        const cat = c.pos;
        const context = c.u64('a fold sample context');
        if (!contexts.has(context)) c.fail(`fold sample in context ${context}, which is not in CONTEXTS`, cat);
        const metrics: (number | null)[] = [];
        for (let m = 0; m < extra; m++) {
          const v = c.u64('a fold sample metric');
          metrics.push(v === UNKNOWN ? null : v > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(v));
        }
        const dat = c.pos;
        const depth = c.u32('a fold sample depth');
        if (depth > 4) c.fail(`fold sample of depth ${depth} (at most 4)`, dat);
        const pcs: bigint[] = [];
        for (let d = 0; d < depth; d++) pcs.push(c.u64('a fold sample program counter'));
        samples.push({ owner, instanceStart, offset, context, metrics, pcs });
      }
      list.push({ lostInstances, lostSamples, instances, samples });
    }
    threads.set(index, list);
  }
  c.done();
  return { patterns, instanceCapacity, sampleCapacity, threads };
}
