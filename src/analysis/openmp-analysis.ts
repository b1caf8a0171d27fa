/**
 * OpenMP analysis of one measured process: blame metrics per calling context (seed 000), overhead
 * classes per parallel region (seed 001), task statistics per task construct (seed 003), and the
 * diagnoses of `hyprof report --diagnose`. Input: the raw process (its construct events already
 * renamed by openmp-names.ts) and its OMPT section. Output: plain JSON-able data (times in ns).
 *
 * Equation 1 (seed 000): idleness of context c = t * Σ_k value_k / busy_k − Σ_k value_k over the work
 * samples k in c, with t the maximum number of threads in use (thread idleness) or the cores of the
 * machine (core idleness). Equation 2: absolute = I_c / (I + W + O + L of the whole program),
 * relative = I_c / (I_c + W_c + O_c + L_c); the same for work, overhead and lock waiting, where lock
 * waiting of a context is what was blamed on it as the releaser of a lock others waited for.
 */
import { EventKind, type RawProcess } from '../samples/raw-model.js';
import type { ConstructName } from './openmp-names.js';
import { OMP_KINDS, OmpKind, type OmptData } from './openmp-raw.js';
import { mergeHistograms, quantile } from './openmp-stats.js';
import { diagnose } from './openmp-diagnose.js';
import type { OmpContextMetrics, OmpRegionReport, OmpConstructReport, OmpTaskReport, OmpSampledTask, OmpDiagnosis, OpenmpAnalysis } from './openmp-model.js';
import { emptyTimes, sampleActivity, sampledTotal, type ActivityTimes, type FrameLocation } from './openmp-samples.js';
import { runLoad } from './run-load.js';

export interface AnalysisInput {
  proc: RawProcess;
  omp: OmptData;
  names: Map<number, ConstructName>;
  /** Code location of a context's hottest sampled line (for serial sections); optional. */
  hotLine?: (context: bigint) => string | null;
  /** Code location of a release address. */
  locate?: (codeptr: bigint) => string;
  /** Function and location of a sampled return address (the code of a task seen by sampling). */
  frameAt?: (pc: bigint) => FrameLocation | null;
}

const pct = (a: number, b: number): number => (b > 0 ? (100 * a) / b : 0);

export function analyzeOpenmp(input: AnalysisInput): OpenmpAnalysis {
  const { proc, omp, names } = input;
  const events = new Map(proc.events.map((e) => [e.id, e]));
  const constructOf = new Map(omp.constructs.map((c) => [c.event, c]));
  const pathCache = new Map<bigint, string>();
  const pathOf = (ctx: bigint): string => {
    let p = pathCache.get(ctx);
    if (p !== undefined) return p;
    const parts: string[] = [];
    for (let c = proc.contexts.get(ctx); c; c = c.parent ? proc.contexts.get(c.parent) : undefined) {
      parts.push(events.get(c.event)?.name.trimEnd() ?? `event ${c.event}`);
      if (!c.parent) break;
    }
    p = parts.reverse().join(' => ');
    pathCache.set(ctx, p);
    return p;
  };
  /** The innermost parallel region enclosing a context (its event), or null. */
  const regionOf = (ctx: bigint): number | null => {
    for (let c = proc.contexts.get(ctx); c; c = c.parent ? proc.contexts.get(c.parent) : undefined) {
      if (constructOf.get(c.event)?.kind === OmpKind.PARALLEL) return c.event;
      if (!c.parent) break;
    }
    return null;
  };
  const nameOf = (ev: number) => names.get(ev)?.name.trimEnd() ?? events.get(ev)?.name.trimEnd() ?? `event ${ev}`;
  const locOf = (ev: number) => names.get(ev)?.location ?? '?';
  const T = Math.max(1, omp.maxTeam);
  const C = Math.max(1, omp.cores);

  // ---- blame per context, merged over threads by path ----
  const byPath = new Map<string, OmpContextMetrics & { ctx: bigint; sampledRest: number }>();
  for (const th of omp.threads) {
    for (const b of th.blame) {
      const path = pathOf(b.context);
      let m = byPath.get(path);
      if (!m) {
        m = {
          ctx: b.context, path, work: 0, idle: 0, overhead: 0, lockWait: 0, threadIdleness: 0, coreIdleness: 0, lockBlame: 0,
          absIdleness: 0, relIdleness: 0, absWork: 0, absLockBlame: 0, relLockBlame: 0, serial: regionOf(b.context) === null,
          samples: 0, sampled: { work: 0, threadIdleness: 0, absIdleness: 0, relIdleness: 0 }, sampledRest: 0,
        };
        byPath.set(path, m);
      }
      m.samples += b.samples;
      m.sampled.work += b.counts.work;
      m.sampled.threadIdleness += Math.max(0, T * b.counts.perWorking - b.counts.work);
      m.sampledRest += b.counts.overhead + b.counts.lockBlame;
      m.work += b.work;
      m.idle += b.idle;
      m.overhead += b.overhead;
      m.lockWait += b.lockWait;
      m.threadIdleness += Math.max(0, T * b.workPerWorking - b.work);
      m.coreIdleness += Math.max(0, C * b.workPerWorking - b.work);
      m.lockBlame += b.lockBlame;
    }
  }
  const contexts = [...byPath.values()];
  const totals = { work: 0, idle: 0, overhead: 0, lockWait: 0, threadIdleness: 0, coreIdleness: 0, lockBlame: 0 };
  for (const m of contexts) {
    totals.work += m.work;
    totals.idle += m.idle;
    totals.overhead += m.overhead;
    totals.lockWait += m.lockWait;
    totals.threadIdleness += m.threadIdleness;
    totals.coreIdleness += m.coreIdleness;
    totals.lockBlame += m.lockBlame;
  }
  const effort = totals.threadIdleness + totals.work + totals.overhead + totals.lockBlame;
  const ownSampled = (m: (typeof contexts)[number]) => m.sampled.threadIdleness + m.sampled.work + m.sampledRest;
  const effortSampled = contexts.reduce((s, m) => s + ownSampled(m), 0);
  for (const m of contexts) {
    const own = m.threadIdleness + m.work + m.overhead + m.lockBlame;
    m.absIdleness = pct(m.threadIdleness, effort);
    m.relIdleness = pct(m.threadIdleness, own);
    m.absWork = pct(m.work, effort);
    m.absLockBlame = pct(m.lockBlame, effort);
    m.relLockBlame = pct(m.lockBlame, own);
    m.sampled.absIdleness = pct(m.sampled.threadIdleness, effortSampled);
    m.sampled.relIdleness = pct(m.sampled.threadIdleness, ownSampled(m));
  }
  contexts.sort((a, b) => b.threadIdleness + b.work - (a.threadIdleness + a.work));

  // ---- regions and overhead classes ----
  const regions = new Map<number, OmpRegionReport>();
  const programOverheads = { time: 0, exec: 0, sync: 0, imbalance: 0, limitedParallelism: 0, threadManagement: 0 };
  for (const th of omp.threads) {
    for (const r of th.regions) {
      let rep = regions.get(r.event);
      if (!rep) {
        rep = { name: nameOf(r.event), location: locOf(r.event), count: 0, instances: 0, time: 0, exec: 0, sync: 0, imbalance: 0, limitedParallelism: 0, threadManagement: 0, perThread: [] };
        regions.set(r.event, rep);
      }
      rep.count += r.count;
      rep.instances = Math.max(rep.instances, r.count);
      rep.time += r.exec + r.threadManagement;
      rep.exec += r.exec;
      rep.sync += r.sync;
      rep.imbalance += r.imbalance;
      rep.limitedParallelism += r.limitedParallelism;
      rep.threadManagement += r.threadManagement;
      rep.perThread.push({ thread: th.index, exec: r.exec, sync: r.sync, imbalance: r.imbalance, limitedParallelism: r.limitedParallelism, threadManagement: r.threadManagement, sampledWork: 0 });
      programOverheads.time += r.exec + r.threadManagement;
      programOverheads.exec += r.exec;
      programOverheads.sync += r.sync;
      programOverheads.imbalance += r.imbalance;
      programOverheads.limitedParallelism += r.limitedParallelism;
      programOverheads.threadManagement += r.threadManagement;
    }
  }
  for (const r of regions.values()) r.perThread.sort((a, b) => a.thread - b.thread);

  // ---- constructs per thread, from the probe statistics ----
  const constructs = new Map<number, OmpConstructReport>();
  for (const t of proc.threads) {
    const per = new Map<number, { calls: number; incl: number; excl: number }>();
    for (const s of t.stats) {
      const c = proc.contexts.get(s.context);
      if (!c || events.get(c.event)?.kind !== EventKind.OPENMP) continue;
      const acc = per.get(c.event) ?? { calls: 0, incl: 0, excl: 0 };
      acc.calls += s.calls;
      acc.incl += s.incl[0] ?? 0;
      acc.excl += s.excl[0] ?? 0;
      per.set(c.event, acc);
    }
    for (const [ev, acc] of per) {
      let rep = constructs.get(ev);
      if (!rep) {
        const kind = constructOf.get(ev)?.kind ?? -1;
        rep = { name: nameOf(ev), kind: OMP_KINDS[kind] ?? 'OpenMP', location: locOf(ev), perThread: [] };
        constructs.set(ev, rep);
      }
      rep.perThread.push({ thread: t.index, ...acc, sampledWork: 0 });
    }
  }
  for (const c of constructs.values()) c.perThread.sort((a, b) => a.thread - b.thread);

  // ---- tasks ----
  const taskRegion = new Map<number, number | null>();
  for (const t of proc.threads) {
    for (const s of t.stats) {
      const c = proc.contexts.get(s.context);
      if (c && constructOf.get(c.event)?.kind === OmpKind.TASK && !taskRegion.has(c.event)) taskRegion.set(c.event, regionOf(c.parent));
    }
  }
  const tasks = new Map<number, OmpTaskReport>();
  const hists = new Map<number, Array<Array<[number, number]>>>();
  for (const th of omp.threads) {
    for (const k of th.tasks) {
      let rep = tasks.get(k.event);
      if (!rep) {
        const reg = taskRegion.get(k.event);
        rep = {
          name: nameOf(k.event), location: locOf(k.event), region: reg != null ? nameOf(reg) : null, created: 0, executed: 0,
          meanNs: 0, maxNs: 0, minNs: 0, medianNs: 0, p90Ns: 0, stdDevNs: 0, spawned: 0, creators: [], sampled: emptyTimes(), sampledCounts: emptyTimes(),
        };
        hists.set(k.event, []);
        tasks.set(k.event, rep);
      }
      rep.created += k.created;
      rep.executed += k.executed;
      rep.spawned += k.spawned;
      rep.stdDevNs += k.sumSq; // summed (us^2) now, turned into the deviation below
      rep.meanNs += k.sum; // summed now, divided below
      rep.maxNs = Math.max(rep.maxNs, k.max);
      if (k.executed > 0) rep.minNs = rep.minNs === 0 ? k.min : Math.min(rep.minNs, k.min);
      rep.creators.push({ thread: th.index, created: k.created, executed: k.executed });
      hists.get(k.event)!.push(k.hist);
    }
  }
  for (const [ev, r] of tasks) {
    r.meanNs = r.executed > 0 ? r.meanNs / r.executed : 0;
    const meanUs = r.meanNs / 1e3;
    r.stdDevNs = r.executed > 1 ? 1e3 * Math.sqrt(Math.max(0, r.stdDevNs / r.executed - meanUs * meanUs)) : 0;
    const hist = mergeHistograms(hists.get(ev)!);
    r.medianNs = quantile(hist, 0.5);
    r.p90Ns = quantile(hist, 0.9);
    r.creators.sort((a, b) => a.thread - b.thread);
  }
  const dispatchNs = omp.threads.reduce((n, t) => n + t.dispatch, 0);
  const dispatchCount = omp.threads.reduce((n, t) => n + t.dispatchCount, 0);
  const taskDispatch = {
    perTaskNs: dispatchCount > 0 ? dispatchNs / dispatchCount : 0,
    tasks: dispatchCount,
    starvation: omp.threads.reduce((n, t) => n + t.starvation, 0),
  };

  // ---- lock release sites ----
  const releases = new Map<string, { location: string; blame: number; count: number }>();
  for (const th of omp.threads) {
    for (const r of th.releases) {
      const location = input.locate ? input.locate(r.codeptr) : `0x${r.codeptr.toString(16)}`;
      const acc = releases.get(location) ?? { location, blame: 0, count: 0 };
      acc.blame += r.blame;
      acc.count += r.count;
      releases.set(location, acc);
    }
  }

  // ---- what sampling saw: runtime shares, and time inside tasks ----
  const act = sampleActivity(proc, omp, input.frameAt ?? (() => null));
  // Level basic has no task events: a barrier's wait then includes the tasks its threads ran there.
  // Sampling measured that time: it leaves the wait classes (limited parallelism, imbalance).
  if (omp.level === 'basic') {
    for (const [event, perThread] of act.tasksInBarriers) {
      const rep = regions.get(event);
      if (!rep) continue;
      for (const p of rep.perThread) {
        let left = perThread.get(p.thread) ?? 0;
        for (const k of ['limitedParallelism', 'imbalance'] as const) {
          const take = Math.min(left, p[k]);
          p[k] -= take;
          rep[k] -= take;
          programOverheads[k] -= take;
          left -= take;
        }
      }
    }
  }
  for (const [event, perThread] of act.workIn) {
    for (const p of [...(regions.get(event)?.perThread ?? []), ...(constructs.get(event)?.perThread ?? [])]) {
      p.sampledWork = perThread.get(p.thread) ?? 0;
    }
  }
  const sampledTasks: OmpSampledTask[] = [];
  for (const t of act.tasks) {
    const { event, location, function: fn, counts, ...times } = t;
    const rep = event !== null ? tasks.get(event) : undefined;
    if (rep) {
      rep.sampled = times;
      rep.sampledCounts = counts;
    } else if (event === null) sampledTasks.push({ location: location ?? '?', function: fn ?? '?', sampled: times, counts });
  }
  sampledTasks.sort((x, y) => sampledTotal(y.sampled) - sampledTotal(x.sampled));

  const analysis: OpenmpAnalysis = {
    file: proc.file,
    node: proc.info.node,
    host: proc.info.attributes.find(([k]) => k === 'Hostname')?.[1] ?? '',
    runtime: omp.runtime,
    level: omp.level,
    substituted: proc.info.attributes.find(([k]) => k === 'OpenMP Runtime Substituted')?.[1] ?? null,
    cores: omp.cores,
    maxThreads: omp.maxTeam,
    totals,
    contexts: contexts.map(({ ctx: _ctx, sampledRest: _rest, ...m }) => m),
    regions: [...regions.values()].sort((a, b) => b.time - a.time),
    programOverheads,
    constructs: [...constructs.values()],
    tasks: [...tasks.values()].sort((a, b) => b.executed - a.executed),
    sampledTasks,
    activity: act.total,
    activityPerThread: act.perThread,
    activityCounts: act.counts.total,
    activityCountsPerThread: act.counts.perThread,
    samples: act.samples,
    periodNs: proc.sampling?.periodNs ?? null,
    creationSites: act.creationSites,
    load: runLoad({ attributes: proc.info.attributes, threads: omp.maxTeam, samples: { count: act.samples, ns: sampledTotal(act.total) } }),
    taskDispatch,
    lost: omp.threads.reduce((n, t) => n + t.lost, 0) + omp.waitTableFull,
    lockReleases: [...releases.values()].sort((a, b) => b.blame - a.blame),
    diagnoses: [],
  };
  analysis.diagnoses = diagnose(analysis, contexts, input.hotLine, effort);
  return analysis;
}
