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

export interface OmpContextMetrics {
  path: string;
  /** Raw sampled time on this context (ns), summed over threads. */
  work: number;
  idle: number;
  overhead: number;
  lockWait: number;
  /** Blamed metrics (equation 1) and lock waiting blamed on this context as the releaser. */
  threadIdleness: number;
  coreIdleness: number;
  lockBlame: number;
  /** Equation 2, in percent, with thread idleness. */
  absIdleness: number;
  relIdleness: number;
  absWork: number;
  absLockBlame: number;
  relLockBlame: number;
  /** True when no parallel region encloses the context (serial code). */
  serial: boolean;
}

export interface OmpRegionReport {
  name: string;
  location: string;
  /** Implicit tasks over all threads. */
  count: number;
  /** Sum over threads of the time in the region's implicit tasks. */
  exec: number;
  sync: number;
  imbalance: number;
  limitedParallelism: number;
  threadManagement: number;
  perThread: Array<{ thread: number; exec: number; sync: number; imbalance: number; limitedParallelism: number; threadManagement: number }>;
}

export interface OmpConstructReport {
  name: string;
  kind: string;
  location: string;
  /** Per thread: calls and inclusive / exclusive time (ns), summed over the construct's contexts. */
  perThread: Array<{ thread: number; calls: number; incl: number; excl: number }>;
}

export interface OmpTaskReport {
  name: string;
  location: string;
  region: string | null;
  created: number;
  executed: number;
  meanNs: number;
  maxNs: number;
  minNs: number;
  /** Median duration, from the log2 histogram (the bucket's geometric middle). */
  medianNs: number;
  /** Per thread: tasks created and executed. */
  creators: Array<{ thread: number; created: number; executed: number }>;
}

export interface OmpDiagnosis {
  kind: 'tasks-too-fine' | 'tasks-too-coarse' | 'task-creation-bottleneck' | 'loop-imbalance' | 'serial-section' | 'lock-contention';
  location: string;
  construct: string;
  message: string;
}

export interface OpenmpAnalysis {
  file: string;
  runtime: string;
  level: string;
  substituted: string | null;
  cores: number;
  maxThreads: number;
  totals: { work: number; idle: number; overhead: number; lockWait: number; threadIdleness: number; coreIdleness: number; lockBlame: number };
  contexts: OmpContextMetrics[];
  regions: OmpRegionReport[];
  programOverheads: { exec: number; sync: number; imbalance: number; limitedParallelism: number; threadManagement: number };
  constructs: OmpConstructReport[];
  tasks: OmpTaskReport[];
  taskDispatch: { perTaskNs: number; tasks: number; starvation: number };
  lockReleases: Array<{ location: string; blame: number; count: number }>;
  diagnoses: OmpDiagnosis[];
}

export interface AnalysisInput {
  proc: RawProcess;
  omp: OmptData;
  names: Map<number, ConstructName>;
  /** Code location of a context's hottest sampled line (for serial sections); optional. */
  hotLine?: (context: bigint) => string | null;
  /** Code location of a release address. */
  locate?: (codeptr: bigint) => string;
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
  const byPath = new Map<string, OmpContextMetrics & { ctx: bigint }>();
  for (const th of omp.threads) {
    for (const b of th.blame) {
      const path = pathOf(b.context);
      let m = byPath.get(path);
      if (!m) {
        m = {
          ctx: b.context, path, work: 0, idle: 0, overhead: 0, lockWait: 0, threadIdleness: 0, coreIdleness: 0, lockBlame: 0,
          absIdleness: 0, relIdleness: 0, absWork: 0, absLockBlame: 0, relLockBlame: 0, serial: regionOf(b.context) === null,
        };
        byPath.set(path, m);
      }
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
  for (const m of contexts) {
    const own = m.threadIdleness + m.work + m.overhead + m.lockBlame;
    m.absIdleness = pct(m.threadIdleness, effort);
    m.relIdleness = pct(m.threadIdleness, own);
    m.absWork = pct(m.work, effort);
    m.absLockBlame = pct(m.lockBlame, effort);
    m.relLockBlame = pct(m.lockBlame, own);
  }
  contexts.sort((a, b) => b.threadIdleness + b.work - (a.threadIdleness + a.work));

  // ---- regions and overhead classes ----
  const regions = new Map<number, OmpRegionReport>();
  const programOverheads = { exec: 0, sync: 0, imbalance: 0, limitedParallelism: 0, threadManagement: 0 };
  for (const th of omp.threads) {
    for (const r of th.regions) {
      let rep = regions.get(r.event);
      if (!rep) {
        rep = { name: nameOf(r.event), location: locOf(r.event), count: 0, exec: 0, sync: 0, imbalance: 0, limitedParallelism: 0, threadManagement: 0, perThread: [] };
        regions.set(r.event, rep);
      }
      rep.count += r.count;
      rep.exec += r.exec;
      rep.sync += r.sync;
      rep.imbalance += r.imbalance;
      rep.limitedParallelism += r.limitedParallelism;
      rep.threadManagement += r.threadManagement;
      rep.perThread.push({ thread: th.index, exec: r.exec, sync: r.sync, imbalance: r.imbalance, limitedParallelism: r.limitedParallelism, threadManagement: r.threadManagement });
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
      rep.perThread.push({ thread: t.index, ...acc });
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
        rep = { name: nameOf(k.event), location: locOf(k.event), region: reg != null ? nameOf(reg) : null, created: 0, executed: 0, meanNs: 0, maxNs: 0, minNs: 0, medianNs: 0, creators: [] };
        hists.set(k.event, []);
        tasks.set(k.event, rep);
      }
      rep.created += k.created;
      rep.executed += k.executed;
      rep.meanNs += k.sum; // summed now, divided below
      rep.maxNs = Math.max(rep.maxNs, k.max);
      if (k.executed > 0) rep.minNs = rep.minNs === 0 ? k.min : Math.min(rep.minNs, k.min);
      rep.creators.push({ thread: th.index, created: k.created, executed: k.executed });
      hists.get(k.event)!.push(k.hist);
    }
  }
  for (const [ev, r] of tasks) {
    r.meanNs = r.executed > 0 ? r.meanNs / r.executed : 0;
    r.medianNs = quantile(mergeHistograms(hists.get(ev)!), 0.5);
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

  const analysis: OpenmpAnalysis = {
    file: proc.file,
    runtime: omp.runtime,
    level: omp.level,
    substituted: proc.info.attributes.find(([k]) => k === 'OpenMP Runtime Substituted')?.[1] ?? null,
    cores: omp.cores,
    maxThreads: omp.maxTeam,
    totals,
    contexts: contexts.map(({ ctx: _ctx, ...m }) => m),
    regions: [...regions.values()].sort((a, b) => b.exec - a.exec),
    programOverheads,
    constructs: [...constructs.values()],
    tasks: [...tasks.values()].sort((a, b) => b.executed - a.executed),
    taskDispatch,
    lockReleases: [...releases.values()].sort((a, b) => b.blame - a.blame),
    diagnoses: [],
  };
  analysis.diagnoses = diagnose(analysis, contexts, input, effort);
  return analysis;
}

const us = (ns: number): string => (ns >= 1e6 ? `${(ns / 1e6).toFixed(1)} ms` : `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} us`);

/**
 * The problems `hyprof report --diagnose` names. Thresholds (chosen to be conservative):
 * - tasks too fine: ≥ 64 instances per thread in use and a median duration under 10 µs or under twice
 *   the runtime's dispatch time per task;
 * - tasks too coarse: fewer than 4 instances per thread in use while the threads of the enclosing
 *   region spend ≥ 15% of its time idle at barriers (imbalance + limited parallelism);
 * - task-creation bottleneck: one thread creates ≥ 90% of a construct's tasks, the other threads run
 *   ≥ 50% of them, ≥ 2 threads in use, and the other threads are idle ≥ 25% of their time in the region;
 * - loop imbalance: a work-shared loop whose slowest thread takes ≥ 1.2 × the mean, ≥ 1% of run time;
 * - serial section: a context outside parallel regions with ≥ 10% absolute and ≥ 30% relative thread
 *   idleness (equation 2);
 * - lock contention: ≥ 5% of the effort waiting for locks released at one site.
 */
function diagnose(a: OpenmpAnalysis, contexts: OmpContextMetrics[], input: AnalysisInput, effort: number): OmpDiagnosis[] {
  const out: OmpDiagnosis[] = [];
  const T = Math.max(1, a.maxThreads);
  const regionByName = new Map(a.regions.map((r) => [r.name, r]));
  for (const t of a.tasks) {
    if (t.executed === 0) continue;
    const fineLimit = Math.max(10_000, 2 * a.taskDispatch.perTaskNs);
    // The median, not the mean: a few preempted instances must not hide thousands of tiny ones.
    if (t.executed >= 64 * T && t.medianNs < fineLimit) {
      out.push({
        kind: 'tasks-too-fine',
        location: t.location,
        construct: t.name,
        message:
          `${t.executed} task instances with a median duration of ${us(t.medianNs)} (mean ${us(t.meanNs)}); the runtime spends ${us(a.taskDispatch.perTaskNs)} ` +
          `dispatching each task: creation and scheduling cost is comparable to the task bodies. ` +
          `Create tasks only above a cutoff (e.g. recursion depth or problem size) or use the final/if clause.`,
      });
    }
    const region = t.region ? regionByName.get(t.region) : undefined;
    const idleShare = region ? (region.imbalance + region.limitedParallelism) / Math.max(1, region.exec) : 0;
    if (t.executed < 4 * T && region && idleShare >= 0.15) {
      out.push({
        kind: 'tasks-too-coarse',
        location: t.location,
        construct: t.name,
        message:
          `only ${t.executed} task instances for ${T} threads (mean ${us(t.meanNs)}, longest ${us(t.maxNs)}); threads of ` +
          `${region.location} are idle at its barriers ${(100 * idleShare).toFixed(0)}% of the time. Split the work into more, smaller tasks.`,
      });
    }
    const top = t.creators.reduce((m, c) => (c.created > m.created ? c : m), { thread: -1, created: 0, executed: 0 });
    // The others must be the consumers (they run most tasks): one thread doing everything while the
    // others are unavailable is no creation bottleneck.
    const consumed = t.creators.filter((c) => c.thread !== top.thread).reduce((n, c) => n + c.executed, 0);
    if (T >= 2 && t.created > 0 && top.created >= 0.9 * t.created && consumed >= 0.5 * t.executed && region) {
      const others = region.perThread.filter((p) => p.thread !== top.thread);
      const oExec = others.reduce((n, p) => n + p.exec, 0);
      const oIdle = others.reduce((n, p) => n + p.imbalance + p.limitedParallelism, 0);
      if (oExec > 0 && oIdle / oExec >= 0.25 && t.executed >= 2 * T) {
        out.push({
          kind: 'task-creation-bottleneck',
          location: t.location,
          construct: t.name,
          message:
            `thread ${top.thread} creates ${((100 * top.created) / t.created).toFixed(0)}% of the ${t.created} tasks while the other ` +
            `threads of ${region.location} are idle ${((100 * oIdle) / oExec).toFixed(0)}% of their time: the consumers wait for ` +
            `the single creator. Create tasks in parallel (e.g. a parallel loop of task creators or taskloop).`,
        });
      }
    }
  }
  const runTime = Math.max(1, ...a.constructs.flatMap((c) => c.perThread.map((p) => p.incl)), effort);
  for (const c of a.constructs) {
    if (c.kind !== 'OpenMP_Work_Loop' || c.perThread.length < 2) continue;
    const times = c.perThread.map((p) => p.incl);
    const max = Math.max(...times);
    const mean = times.reduce((n, x) => n + x, 0) / times.length;
    if (mean > 0 && max >= 1.2 * mean && max >= 0.01 * runTime) {
      const slow = c.perThread.find((p) => p.incl === max)!;
      out.push({
        kind: 'loop-imbalance',
        location: c.location,
        construct: c.name,
        message:
          `load imbalance: the slowest thread (${slow.thread}) spends ${us(max)} in the loop, the mean is ${us(mean)} ` +
          `(${((100 * (max - mean)) / max).toFixed(0)}% of the slowest thread's time is waited by the others). ` +
          `Use schedule(dynamic) / schedule(guided) or balance the iterations.`,
      });
    }
  }
  for (const m of contexts) {
    if (!m.serial || m.absIdleness < 10 || m.relIdleness < 30) continue;
    const ctx = (m as OmpContextMetrics & { ctx?: bigint }).ctx;
    const line = ctx !== undefined && input.hotLine ? input.hotLine(ctx) : null;
    const leaf = m.path.split(' => ').pop() ?? m.path;
    out.push({
      kind: 'serial-section',
      location: line ?? leaf,
      construct: m.path,
      message:
        `serial code in ${leaf}${line ? ` (hottest line ${line})` : ''} leaves threads idle: ${m.absIdleness.toFixed(1)}% of the ` +
        `whole effort is idleness blamed on it, ${m.relIdleness.toFixed(0)}% relative (${a.maxThreads} threads, one working). ` +
        `Parallelize it or overlap it with parallel work.`,
    });
  }
  for (const r of a.lockReleases) {
    const share = pct(r.blame, effort);
    if (share >= 5) {
      out.push({
        kind: 'lock-contention',
        location: r.location,
        construct: 'lock release',
        message: `${share.toFixed(1)}% of the effort is threads waiting for the lock released here (${r.count} releases with waiters). Shorten the critical section or split the lock.`,
      });
    }
  }
  return out;
}
