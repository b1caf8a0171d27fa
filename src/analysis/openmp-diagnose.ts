/**
 * The problems `hyprof report --diagnose` names, each with the construct's code location, the numbers
 * that decided it, and a grade: `strong` past the upper threshold, `weak` past the lower one, so a
 * ruling does not flip between two runs that differ by a few percent. Thresholds (docs/openmp.md,
 * "Diagnoses"; shares in percent):
 *
 * - tasks too fine (seed 003): the runtime's cost per task (dispatch gap measured at level full, plus
 *   creation time sampled per task created) against the task's median duration: weak when the cost
 *   is ≥ 20% of cost + duration, strong ≥ 50% (the runtime spends as long on a task as the task runs);
 *   at least 32 instances per thread. At level basic (no task events) the same shares come from
 *   samples: time creating and dispatching tasks against time in task code.
 * - tasks too coarse: at most 4 instances per thread, not a generator (its instances create fewer
 *   than 8 tasks each), and the threads of its region wait at its barriers ≥ 15% (weak) / ≥ 30%
 *   (strong) of their time there.
 * - task-creation bottleneck: one thread creates ≥ 75% (weak) / ≥ 90% (strong) of the tasks (level
 *   full, by count; at basic, one thread runs that share of the sampled task code) while the other
 *   threads wait ≥ 20% / ≥ 40% of their time in the region (at its barriers; sampled barrier and idle
 *   time at basic).
 * - region overhead (many short parallel regions): at least 100 instances of under 1 ms each per
 *   thread, and forking, joining and waiting at the region's barriers take ≥ 20% (weak) / ≥ 40%
 *   (strong) of the threads' time in it.
 * - loop imbalance: the slowest thread's time in a work-shared loop is ≥ 1.2× (weak) / ≥ 1.5×
 *   (strong) the mean, and ≥ 1% of the run.
 * - serial section: a context outside parallel regions with ≥ 10% absolute and ≥ 30% relative thread
 *   idleness (seed 000, equation 2); strong from 25% absolute.
 * - lock contention: ≥ 5% (weak) / ≥ 15% (strong) of the effort waiting for locks released at one site.
 */
import type { OmpContextMetrics, OmpDiagnosis, OpenmpAnalysis } from './openmp-analysis.js';
import { sampledTotal, taskManagement } from './openmp-samples.js';

const us = (ns: number): string => {
  if (ns >= 1e6) return `${(ns / 1e6).toPrecision(3)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toPrecision(3)} us`;
  return `${Math.round(ns)} ns`;
};
const p0 = (x: number): string => `${x.toFixed(x < 10 ? 1 : 0)}%`;

/** Grade a share against its two thresholds; null below the lower one. */
function grade(share: number, weak: number, strong: number): 'strong' | 'weak' | null {
  return share >= strong ? 'strong' : share >= weak ? 'weak' : null;
}
const lower = (a: 'strong' | 'weak' | null, b: 'strong' | 'weak' | null): 'strong' | 'weak' | null =>
  a === null || b === null ? null : a === 'weak' || b === 'weak' ? 'weak' : 'strong';

/** Minimum samples for a sampled share to be worth a finding. */
const MIN_SAMPLES = 20;

export function diagnose(
  a: OpenmpAnalysis,
  contexts: Array<OmpContextMetrics & { ctx?: bigint }>,
  hotLine: ((context: bigint) => string | null) | undefined,
  effort: number,
): OmpDiagnosis[] {
  const out: OmpDiagnosis[] = [];
  const T = Math.max(1, a.maxThreads);
  const period = a.samples > 0 ? sampledTotal(a.activity) / a.samples : 0; // ns per sample
  const regionByName = new Map(a.regions.map((r) => [r.name, r]));
  const created = a.tasks.reduce((n, t) => n + t.created, 0);
  // Creation cost per task, from samples (the creating code's time in the runtime's task creation).
  const creationPerTask = created > 0 ? a.activity.creation / created : 0;

  // ---- tasks with events (level full) ----
  for (const t of a.tasks) {
    if (t.executed === 0) continue;
    const region = t.region ? regionByName.get(t.region) : undefined;
    const cost = a.taskDispatch.perTaskNs + creationPerTask;
    const fineShare = (100 * cost) / Math.max(1, cost + t.medianNs);
    const fine = t.executed >= 32 * T ? grade(fineShare, 20, 50) : null;
    if (fine) {
      out.push({
        kind: 'tasks-too-fine',
        severity: fine,
        score: fineShare,
        location: t.location,
        construct: t.name,
        message:
          `${t.executed} instances with a median duration of ${us(t.medianNs)} (90% under ${us(t.p90Ns)}, mean ${us(t.meanNs)}); ` +
          `the runtime spends about ${us(cost)} on each (dispatch ${us(a.taskDispatch.perTaskNs)}` +
          `${creationPerTask > 0 ? `, creation ${us(creationPerTask)} sampled` : ''}): ${p0(fineShare)} of a task's cost is the runtime's. ` +
          'Create tasks only above a cutoff (recursion depth, problem size) or use the if / final clause.',
      });
    }
    const generator = t.spawned >= 8 * t.executed;
    const idleShare = region ? (100 * (region.imbalance + region.limitedParallelism)) / Math.max(1, region.time) : 0;
    const coarse = !generator && t.executed <= 4 * T && region ? grade(idleShare, 15, 30) : null;
    if (coarse && region) {
      out.push({
        kind: 'tasks-too-coarse',
        severity: coarse,
        score: idleShare,
        location: t.location,
        construct: t.name,
        message:
          `only ${t.executed} instances for ${T} threads (mean ${us(t.meanNs)}, longest ${us(t.maxNs)}) while the threads of ` +
          `${region.location} wait at its barriers ${p0(idleShare)} of their time there. Split the work into more, smaller tasks.`,
      });
    }
    // One thread creates the tasks, the others wait for work in the region (whoever then runs them:
    // a creator that runs its own tasks at once starves the others just the same).
    const top = t.creators.reduce((m, c) => (c.created > m.created ? c : m), { thread: -1, created: 0, executed: 0 });
    if (T >= 2 && t.created > 0 && region && t.executed >= 2 * T) {
      const share = (100 * top.created) / t.created;
      const others = region.perThread.filter((p) => p.thread !== top.thread);
      const oTime = others.reduce((n, p) => n + p.exec + p.threadManagement, 0);
      const oIdle = (100 * others.reduce((n, p) => n + p.imbalance + p.limitedParallelism, 0)) / Math.max(1, oTime);
      const g = lower(grade(share, 75, 90), grade(oIdle, 20, 40));
      if (g) {
        out.push({
          kind: 'task-creation-bottleneck',
          severity: g,
          score: oIdle,
          location: t.location,
          construct: t.name,
          message:
            `thread ${top.thread} creates ${p0(share)} of the ${t.created} tasks while the other threads of ${region.location} ` +
            `wait ${p0(oIdle)} of their time there: they run out of tasks. Create tasks in parallel (a work-shared loop of ` +
            'task creators, taskloop) or make each task bigger.',
        });
      }
    }
  }

  // ---- tasks seen by sampling only (level basic) ----
  if (a.tasks.length === 0 && a.samples > 0) {
    const body = a.sampledTasks.reduce((n, t) => n + t.sampled.work, 0);
    const mgmt = taskManagement(a.activity);
    const taskSamples = period > 0 ? (body + mgmt) / period : 0;
    const share = (100 * mgmt) / Math.max(1, body + mgmt);
    const top = a.sampledTasks[0];
    const fine = taskSamples >= MIN_SAMPLES && top ? grade(share, 20, 50) : null;
    if (fine && top) {
      out.push({
        kind: 'tasks-too-fine',
        severity: fine,
        score: share,
        location: top.location,
        construct: `tasks (sampled; the busiest runs ${top.function})`,
        message:
          `threads spend ${us(mgmt)} creating and dispatching tasks against ${us(body)} in the tasks' own code (samples): ` +
          `${p0(share)} of the tasks' cost is the runtime's. Create tasks only above a cutoff (recursion depth, problem size) ` +
          'or use the if / final clause. HYPROF_OPENMP=full counts and times each task.',
      });
    }
    // Who runs the tasks: one thread running nearly all task code while the others wait means the
    // tasks do not reach them (one creator, or a creator running its own tasks at once).
    const runners = [...a.activityPerThread].sort((x, y) => y.inTasks - x.inTasks);
    const allTasks = runners.reduce((n, p) => n + p.inTasks, 0);
    if (T >= 2 && runners.length >= 2 && allTasks / Math.max(period, 1) >= MIN_SAMPLES) {
      const c = runners[0];
      const shareC = (100 * c.inTasks) / allTasks;
      const others = a.activityPerThread.filter((p) => p.thread !== c.thread);
      const oTotal = others.reduce((n, p) => n + sampledTotal(p), 0);
      const oWait = (100 * others.reduce((n, p) => n + p.barrier + p.idle, 0)) / Math.max(1, oTotal);
      const g = lower(grade(shareC, 75, 90), grade(oWait, 20, 40));
      if (g) {
        out.push({
          kind: 'task-creation-bottleneck',
          severity: g,
          score: oWait,
          location: top?.location ?? '?',
          construct: 'tasks (sampled)',
          message:
            `thread ${c.thread} runs ${p0(shareC)} of the sampled task code while the other threads wait ${p0(oWait)} of ` +
            'their sampled time (barrier, idle): the tasks do not reach them (one thread creates them, or runs them as it ' +
            'creates them). Create tasks in parallel (a work-shared loop of task creators, taskloop) or make each task bigger.',
        });
      }
    }
  }

  // ---- parallel regions: many short ones ----
  for (const r of a.regions) {
    if (r.instances < 100 || r.count === 0) continue;
    const perInstance = r.time / r.count; // per thread and instance
    if (perInstance >= 1e6) continue;
    const overhead = r.threadManagement + r.imbalance + r.limitedParallelism;
    const share = (100 * overhead) / Math.max(1, r.time);
    const g = grade(share, 20, 40);
    if (!g) continue;
    out.push({
      kind: 'region-overhead',
      severity: g,
      score: share,
      location: r.location,
      construct: r.name,
      message:
        `${r.instances} instances of about ${us(perInstance)} per thread; forking and joining (${p0((100 * r.threadManagement) / Math.max(1, r.time))}) ` +
        `and waiting at its barriers (${p0((100 * (r.imbalance + r.limitedParallelism)) / Math.max(1, r.time))}) take ${p0(share)} ` +
        "of the threads' time in it. Open one parallel region around the loop that repeats it (the loop inside it, work-shared), " +
        'or give each instance more work.',
    });
  }

  // ---- work-shared loops ----
  // Loops, not Math.max(...values): a spread over every construct of every thread can overflow the stack.
  let runTime = Math.max(1, effort);
  for (const c of a.constructs) for (const p of c.perThread) runTime = Math.max(runTime, p.incl);
  for (const c of a.constructs) {
    if (c.kind !== 'OpenMP_Work_Loop' || c.perThread.length < 2) continue;
    const times = c.perThread.map((p) => p.incl);
    const max = times.reduce((m, x) => Math.max(m, x), -Infinity);
    const mean = times.reduce((n, x) => n + x, 0) / times.length;
    if (mean <= 0 || max < 0.01 * runTime) continue;
    const ratio = max / mean;
    const g = ratio >= 1.5 ? 'strong' : ratio >= 1.2 ? 'weak' : null;
    if (!g) continue;
    const slow = c.perThread.find((p) => p.incl === max)!;
    const share = (100 * (max - mean)) / max;
    out.push({
      kind: 'loop-imbalance',
      severity: g,
      score: share,
      location: c.location,
      construct: c.name,
      message:
        `load imbalance: the slowest thread (${slow.thread}) spends ${us(max)} in the loop, ${ratio.toFixed(2)}x the mean of ${us(mean)} ` +
        `(${p0(share)} of the slowest thread's time is waited by the others). Use schedule(dynamic) / schedule(guided) or balance the iterations.`,
    });
  }

  // ---- serial sections ----
  for (const m of contexts) {
    if (!m.serial || m.absIdleness < 10 || m.relIdleness < 30) continue;
    const line = m.ctx !== undefined && hotLine ? hotLine(m.ctx) : null;
    const leaf = m.path.split(' => ').pop() ?? m.path;
    out.push({
      kind: 'serial-section',
      severity: m.absIdleness >= 25 ? 'strong' : 'weak',
      score: m.absIdleness,
      location: line ?? leaf,
      construct: m.path,
      message:
        `serial code in ${leaf}${line ? ` (hottest line ${line})` : ''} leaves threads idle: ${m.absIdleness.toFixed(1)}% of the ` +
        `whole effort is idleness blamed on it, ${m.relIdleness.toFixed(0)}% relative (${a.maxThreads} threads, one working). ` +
        'Parallelize it or overlap it with parallel work.',
    });
  }

  // ---- locks ----
  for (const r of a.lockReleases) {
    const share = effort > 0 ? (100 * r.blame) / effort : 0;
    const g = grade(share, 5, 15);
    if (!g) continue;
    out.push({
      kind: 'lock-contention',
      severity: g,
      score: share,
      location: r.location,
      construct: 'lock release',
      message: `${share.toFixed(1)}% of the effort is threads waiting for the lock released here (${r.count} releases with waiters). Shorten the critical section or split the lock.`,
    });
  }
  return out.sort((x, y) => (x.severity === y.severity ? y.score - x.score : x.severity === 'strong' ? -1 : 1));
}
