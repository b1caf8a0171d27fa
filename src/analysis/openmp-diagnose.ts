/**
 * The problems `hyprof report --diagnose` names, each with the construct's code location, the numbers
 * that decided it, the evidence behind them, and a grade: `strong` past the upper threshold, `weak`
 * past the lower one, so a ruling does not flip between two runs that differ by a few percent.
 * Thresholds (docs/openmp.md, "Diagnoses"; shares in percent):
 *
 * - tasks too fine (seed 003): the runtime's cost per task (dispatch gap measured at level full, plus
 *   creation time sampled per task created) against the task's median duration: weak when the cost
 *   is ≥ 20% of cost + duration, strong ≥ 50% (the runtime spends as long on a task as the task runs);
 *   at least 32 instances per thread. With MIN_STRONG samples in its instances and their creation
 *   and dispatch, their share decides; with MIN_WEAK, where it gives the higher grade. At level
 *   basic (no task events) the same shares come from samples: samples creating and dispatching tasks
 *   against samples in task code.
 * - tasks too coarse: at most 4 instances per thread, not a generator (its instances create fewer
 *   than 8 tasks each), and the threads of its region wait at its barriers ≥ 15% (weak) / ≥ 30%
 *   (strong) of their time there; at most weak on an oversubscribed run (capWaits).
 * - task-creation bottleneck: one thread creates ≥ 75% (weak) / ≥ 90% (strong) of the tasks (level
 *   full, by count; at basic, one thread runs that share of the sampled task code) while the other
 *   threads wait ≥ 20% / ≥ 40% of their time in the region (at its barriers; sampled barrier and idle
 *   samples at basic). One finding per creating thread and region, listing its task constructs. At
 *   level full (waits timed) at most weak on an oversubscribed run (capWaits).
 * - region overhead (many short parallel regions): at least 100 instances of under 1 ms each per
 *   thread (the time the threads ran: wall time × the share they were not waiting to run), and
 *   forking, joining and waiting at the region's barriers take ≥ 20% (weak) / ≥ 40% (strong) of the
 *   threads' time in it; at most weak on an oversubscribed run (capWaits).
 * - loop imbalance: the slowest thread's time in a work-shared loop is ≥ 1.2× (weak) / ≥ 1.5×
 *   (strong) the mean, and ≥ 1% of the run; with MIN_STRONG samples of the program's code in the
 *   loop, their most per thread against the mean must say the same grade (the lower one is given);
 *   with fewer, at most weak on an oversubscribed run.
 * - imbalance in a region (no work-shared loop reported: gcc's static schedules): the slowest
 *   thread's work in the region (its time there less its waits) is ≥ 1.2× (weak) / ≥ 1.5× (strong)
 *   the mean, and its extra work ≥ 1% of the run; its samples of work there as for loops.
 * - serial section: a context outside parallel regions with ≥ 10% absolute and ≥ 30% relative thread
 *   idleness (seed 000, equation 2, counted in samples); strong from 25% absolute.
 * - lock contention: ≥ 5% (weak) / ≥ 15% (strong) of the effort waiting for locks released at one site.
 *
 * Robust under load (issue: the same program measured on an idle and on a loaded machine must get the
 * same findings). A wall-clock sample's time is the wall time since the thread's previous sample, so on
 * a loaded machine the time a thread waited to run lands on wherever it resumed, mostly a runtime's
 * spin-wait; the number of samples grows only while the thread runs. Sampled shares are therefore
 * taken from counts of samples, and durations judged against a fixed bound ("under 1 ms") are
 * corrected by the share of time the threads ran (run-load.ts). Evidence: a finding needs at least
 * MIN_WEAK samples or events behind the share that decides it, a strong one MIN_STRONG; below that it
 * is weak, or not raised. Each finding states its evidence and, for a sampled share, a 95% interval.
 */
import type { OmpContextMetrics, OmpDiagnosis, OpenmpAnalysis } from './openmp-model.js';
import { sampledTotal, taskManagement } from './openmp-samples.js';
import { ranShare } from './run-load.js';

const us = (ns: number): string => {
  if (ns >= 1e6) return `${(ns / 1e6).toPrecision(3)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toPrecision(3)} us`;
  return `${Math.round(ns)} ns`;
};
const p0 = (x: number): string => `${x.toFixed(x < 10 ? 1 : 0)}%`;

export type Grade = 'strong' | 'weak' | null;

/** Grade a share against its two thresholds; null below the lower one. */
function grade(share: number, weak: number, strong: number): Grade {
  return share >= strong ? 'strong' : share >= weak ? 'weak' : null;
}
const lower = (a: Grade, b: Grade): Grade => (a === null || b === null ? null : a === 'weak' || b === 'weak' ? 'weak' : 'strong');

/** Samples or events a finding needs at all, and for `strong`. */
export const MIN_WEAK = 20;
export const MIN_STRONG = 50;

const rank = (g: Grade): number => (g === 'strong' ? 2 : g === 'weak' ? 1 : 0);

/**
 * "Tasks too fine" at level full: the grade from the durations (the runtime's share of a task's cost,
 * null when too few instances) or from the samples in the construct's instances and their creation
 * and dispatch. With MIN_STRONG samples they decide; with fewer, they do where they give the higher
 * grade (weak at most, backed). Durations only understate the runtime's share: load stretches a
 * task's time while dispatch gaps over 100 us are not counted, and at this level each instance's
 * time also holds the tool's own work (its callbacks for the task, the children it creates and its
 * waits), which on tasks of a microsecond is as long as the task (BOTS fib without cut-off, 2
 * threads, clang: durations 8%, its 46 samples 87%). Samples in the tool's own code are not counted.
 */
export function fineRuling(durationShare: number | null, instances: number, samples: { mgmt: number; n: number } | null): { grade: Grade; bySamples: boolean } {
  const byDurations = durationShare === null ? null : backed(grade(durationShare, 20, 50), instances);
  if (!samples || samples.n === 0) return { grade: byDurations, bySamples: false };
  const bySamples = backed(grade((100 * samples.mgmt) / samples.n, 20, 50), samples.n);
  return samples.n >= MIN_STRONG || rank(bySamples) > rank(byDurations)
    ? { grade: bySamples, bySamples: true }
    : { grade: byDurations, bySamples: false };
}

/** The grade the evidence allows: none under MIN_WEAK, at most weak under MIN_STRONG. */
function backed(g: Grade, evidence: number): Grade {
  if (g === null || evidence < MIN_WEAK) return null;
  return evidence < MIN_STRONG ? 'weak' : g;
}

/**
 * A share of time spent waiting at barriers (or forking and joining), measured on an oversubscribed
 * run, is only bounded from above: a thread that waits to run (a time slice, milliseconds) holds the
 * others at the barrier, and their wait counts. Neither the run's wait share (LULESH beside a CPU
 * hog: 0.50 in one run, 0.82 in the next, with the same shares) nor the samples of short constructs
 * take it out, so such a finding stays, at most weak, and its evidence says why.
 */
/** How the evidence of a finding graded down for the machine's load begins (after what it rests on). */
export const OVERSUBSCRIBED_CAP = 'at most weak: the machine was oversubscribed';
export const LOADED_WAITS = `${OVERSUBSCRIBED_CAP}, and a thread that waited to run held the others at the barriers, which this share counts`;
function capWaits(g: Grade, evidence: string, loaded: boolean): { g: Grade; evidence: string } {
  return loaded && g === 'strong' ? { g: 'weak', evidence: `${evidence}; ${LOADED_WAITS}` } : { g, evidence };
}

/** Wilson's 95% interval of a share k/n, in percent. */
export function wilson(k: number, n: number): [number, number] {
  if (n <= 0) return [0, 100];
  const z = 1.96;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [100 * Math.max(0, c - h), 100 * Math.min(1, c + h)];
}

const sampledEvidence = (k: number, n: number): string => {
  const [lo, hi] = wilson(k, n);
  return `from ${n} samples (95% interval ${lo.toFixed(0)}–${hi.toFixed(0)}%)`;
};

/** Inlined copies of one construct carry one location and ` #<event>` names: one finding each kind. */
const baseName = (construct: string): string => construct.replace(/ #\d+(\s*\[.*)?$/, '$1').trimEnd();

export function diagnose(
  a: OpenmpAnalysis,
  contexts: Array<OmpContextMetrics & { ctx?: bigint }>,
  hotLine: ((context: bigint) => string | null) | undefined,
  effort: number,
): OmpDiagnosis[] {
  const out: OmpDiagnosis[] = [];
  const T = Math.max(1, a.maxThreads);
  const loaded = a.load?.oversubscribed ?? false;
  // The share of wall time the threads ran; durations are corrected by it on an oversubscribed run
  // only (an idle machine's few percent of run-queue wait would only shift rulings near thresholds).
  const ran = loaded ? ranShare(a.load) : 1;
  const counts = a.activityCounts;
  const regionByName = new Map(a.regions.map((r) => [r.name, r]));
  const created = a.tasks.reduce((n, t) => n + t.created, 0);
  const executed = a.tasks.reduce((n, t) => n + t.executed, 0);
  // Creation cost per task, from samples: the samples taken in the runtime's task creation, each a
  // sampling period of running time. Not their time scaled by the run's share of time the threads
  // ran: on a producer of 100,000 tasks beside a CPU hog that share was 0.07 and gave 1-7 ns per task
  // where the counts gave 20-70 (idle, both: 80-120).
  const creationPerTask =
    created > 0 ? (a.periodNs && counts ? (counts.creation * a.periodNs) / created : (a.activity.creation * ran) / created) : 0;

  // ---- tasks with events (level full) ----
  for (const t of a.tasks) {
    if (t.executed === 0) continue;
    const region = t.region ? regionByName.get(t.region) : undefined;
    // The dispatch gap is wall time in the runtime between tasks, but only gaps of up to 100 us count
    // (longer ones are starvation): a thread preempted there waits a time slice of milliseconds, so
    // the gaps kept are time it ran. Not scaled by the share the threads ran: that share also counts
    // the runtime's own yields while it waits (libomp's spin-wait yields to whatever else is
    // runnable), which on a loaded machine made it a few percent and the gap nothing.
    const cost = a.taskDispatch.perTaskNs + creationPerTask;
    let fineShare = (100 * cost) / Math.max(1, cost + t.medianNs);
    let evidence = `from ${t.executed} task instances (durations)`;
    // A task's wall time includes any time its thread waited to run, and so do the dispatch gaps: on a
    // loaded machine the durations say less than the samples inside the construct's instances,
    // counted, which load does not stretch. With enough of them the samples decide, loaded or not,
    // so that one program gets one ruling on an idle and on a busy machine.
    // The runtime's samples creating and dispatching tasks, this construct's part of them (by the
    // tasks it created and ran), against the samples in its instances' own code.
    const sc = t.sampledCounts;
    const mgmtN =
      counts && sc
        ? Math.round((counts.creation * t.created) / Math.max(1, created) + (counts.dispatch * t.executed) / Math.max(1, executed))
        : 0;
    const sampledN = sc ? sc.work + mgmtN : 0;
    const enough = t.executed >= 32 * T;
    const ruling = fineRuling(enough ? fineShare : null, t.executed, sc !== undefined && enough ? { mgmt: mgmtN, n: sampledN } : null);
    if (ruling.bySamples) {
      fineShare = (100 * mgmtN) / sampledN;
      evidence = sampledEvidence(mgmtN, sampledN);
    }
    const fine = ruling.grade;
    const bySamples = ruling.bySamples;
    if (fine) {
      out.push({
        kind: 'tasks-too-fine',
        severity: fine,
        score: fineShare,
        location: t.location,
        construct: t.name,
        evidence,
        message:
          `${t.executed} instances with a median duration of ${us(t.medianNs)} (90% under ${us(t.p90Ns)}, mean ${us(t.meanNs)}); ` +
          `the runtime spends about ${us(cost)} on each (dispatch ${us(a.taskDispatch.perTaskNs)}` +
          `${creationPerTask > 0 ? `, creation ${us(creationPerTask)} sampled` : ''})` +
          (bySamples
            ? `; of the samples in its instances and their creation, ${p0(fineShare)} are the runtime's creating and dispatching them. `
            : `: ${p0(fineShare)} of a task's cost is the runtime's. `) +
          'Create tasks only above a cutoff (recursion depth, problem size) or use the if / final clause.',
      });
    }
    const generator = t.spawned >= 8 * t.executed;
    const idleShare = region ? (100 * (region.imbalance + region.limitedParallelism)) / Math.max(1, region.time) : 0;
    const coarse = capWaits(
      !generator && t.executed <= 4 * T && region ? grade(idleShare, 15, 30) : null,
      `from ${t.executed} task instances and ${region?.count ?? 0} implicit tasks of the region`,
      loaded,
    );
    if (coarse.g && region) {
      out.push({
        kind: 'tasks-too-coarse',
        severity: coarse.g,
        score: idleShare,
        location: t.location,
        construct: t.name,
        evidence: coarse.evidence,
        message:
          `only ${t.executed} instances for ${T} threads (mean ${us(t.meanNs)}, longest ${us(t.maxNs)}) while the threads of ` +
          `${region.location} wait at its barriers ${p0(idleShare)} of their time there. Split the work into more, smaller tasks.`,
      });
    }
  }
  // One thread creates the tasks, the others wait for work in the region (whoever then runs them: a
  // creator that runs its own tasks at once starves the others just the same). One finding per
  // creating thread and region, over all the task constructs it creates there.
  const producers = new Map<string, { thread: number; region: NonNullable<ReturnType<typeof regionByName.get>>; tasks: typeof a.tasks; created: number; total: number }>();
  for (const t of a.tasks) {
    const region = t.region ? regionByName.get(t.region) : undefined;
    if (T < 2 || t.created === 0 || !region || t.executed < 2 * T) continue;
    const top = t.creators.reduce((m, c) => (c.created > m.created ? c : m), { thread: -1, created: 0, executed: 0 });
    const key = `${top.thread}\u0000${region.name}`;
    let p = producers.get(key);
    if (!p) producers.set(key, (p = { thread: top.thread, region, tasks: [], created: 0, total: 0 }));
    p.tasks.push(t);
    p.created += top.created;
    p.total += t.created;
  }
  for (const p of producers.values()) {
    const share = (100 * p.created) / p.total;
    const others = p.region.perThread.filter((x) => x.thread !== p.thread);
    const oTime = others.reduce((n, x) => n + x.exec + x.threadManagement, 0);
    const oIdle = (100 * others.reduce((n, x) => n + x.imbalance + x.limitedParallelism, 0)) / Math.max(1, oTime);
    // Who creates the tasks is counted; how long the others waited is timed (capWaits).
    const { g, evidence } = capWaits(backed(lower(grade(share, 75, 90), grade(oIdle, 20, 40)), p.total), `from ${p.total} tasks created`, loaded);
    if (!g) continue;
    const first = [...p.tasks].sort((x, y) => y.created - x.created)[0];
    const more = p.tasks.length > 1 ? ` (and ${p.tasks.length - 1} more task construct${p.tasks.length > 2 ? 's' : ''}: ${p.tasks.slice(1).map((x) => x.location).join(', ')})` : '';
    out.push({
      kind: 'task-creation-bottleneck',
      severity: g,
      score: oIdle,
      location: first.location,
      construct: `${first.name}${more}`,
      evidence,
      message:
        `thread ${p.thread} creates ${p0(share)} of the ${p.total} tasks while the other threads of ${p.region.location} ` +
        `wait ${p0(oIdle)} of their time there: they run out of tasks. Create tasks in parallel (a work-shared loop of ` +
        'task creators, taskloop) or make each task bigger.',
    });
  }

  // ---- tasks seen by sampling only (level basic) ----
  if (a.tasks.length === 0 && a.samples > 0 && counts) {
    const bodyN = a.sampledTasks.reduce((n, t) => n + (t.counts?.work ?? 0), 0);
    const mgmtN = taskManagement(counts);
    const body = a.sampledTasks.reduce((n, t) => n + t.sampled.work, 0);
    const mgmt = taskManagement(a.activity);
    const taskSamples = bodyN + mgmtN;
    const share = (100 * mgmtN) / Math.max(1, taskSamples);
    const top = a.sampledTasks[0];
    // The task constructs' own lines: where the runtime's task creation was called from (each site
    // with at least a tenth of the creation samples, in source order, so that two constructs of
    // nearly equal weight do not trade places between runs). Not a fifth: on a loaded machine the
    // first of fib's two constructs drew 75-77 % of the samples (the other 23-25 %, 40 % idle), one
    // run in a few fell under a fifth and the finding lost a line.
    const sites = a.creationSites ?? [];
    const siteN = sites.reduce((n, x) => n + x.samples, 0);
    const main = sites.filter((x) => x.samples >= 0.1 * siteN).sort((x, y) => x.location.localeCompare(y.location, 'en', { numeric: true }));
    const site = main.length > 0 ? { location: main.map((x) => x.location).join(', '), function: [...new Set(main.map((x) => x.function))].join(', ') } : undefined;
    const fine = top ? backed(grade(share, 20, 50), taskSamples) : null;
    if (fine && top) {
      out.push({
        kind: 'tasks-too-fine',
        severity: fine,
        score: share,
        location: site?.location ?? top.location,
        construct: `tasks (sampled; the busiest runs ${top.function}${site ? `, created in ${site.function}` : ''})`,
        evidence: sampledEvidence(mgmtN, taskSamples),
        message:
          `threads spend ${mgmtN} samples (${us(mgmt)}) creating and dispatching tasks against ${bodyN} (${us(body)}) in the tasks' own code: ` +
          `${p0(share)} of the tasks' cost is the runtime's. Create tasks only above a cutoff (recursion depth, problem size) ` +
          'or use the if / final clause. HYPROF_OPENMP=full counts and times each task.',
      });
    }
    // Who runs the tasks: one thread running nearly all task code while the others wait means the
    // tasks do not reach them (one creator, or a creator running its own tasks at once).
    const perThread = a.activityCountsPerThread ?? [];
    const runners = [...perThread].sort((x, y) => y.inTasks - x.inTasks);
    const allTasks = runners.reduce((n, p) => n + p.inTasks, 0);
    if (T >= 2 && runners.length >= 2 && allTasks >= MIN_WEAK) {
      const c = runners[0];
      const shareC = (100 * c.inTasks) / allTasks;
      const others = perThread.filter((p) => p.thread !== c.thread);
      const oTotal = others.reduce((n, p) => n + sampledTotal(p), 0);
      const oWait = (100 * others.reduce((n, p) => n + p.barrier + p.idle, 0)) / Math.max(1, oTotal);
      const g = backed(lower(grade(shareC, 75, 90), grade(oWait, 20, 40)), Math.min(allTasks, oTotal));
      if (g) {
        out.push({
          kind: 'task-creation-bottleneck',
          severity: g,
          score: oWait,
          location: site?.location ?? top?.location ?? '?',
          construct: `tasks (sampled${site ? `; created in ${site.function}` : ''})`,
          evidence: `from ${allTasks} samples in task code and ${oTotal} of the other threads (95% interval of the wait ${wilson(others.reduce((n, p) => n + p.barrier + p.idle, 0), oTotal).map((x) => x.toFixed(0)).join('–')}%)`,
          message:
            `thread ${c.thread} runs ${p0(shareC)} of the sampled task code while the other threads wait ${p0(oWait)} of ` +
            'their samples (barrier, idle): the tasks do not reach them (one thread creates them, or runs them as it ' +
            'creates them). Create tasks in parallel (a work-shared loop of task creators, taskloop) or make each task bigger.',
        });
      }
    }
  }

  // ---- parallel regions: many short ones ----
  for (const r of a.regions) {
    if (r.instances < 100 || r.count === 0) continue;
    const perInstance = r.time / r.count; // per thread and instance, wall
    if (perInstance * ran >= 1e6) continue; // the time the threads ran, not the time they waited to
    const overhead = r.threadManagement + r.imbalance + r.limitedParallelism;
    const share = (100 * overhead) / Math.max(1, r.time);
    // On an oversubscribed run, one time slice a thread waited to run lands in an instance of
    // microseconds, held at the barrier by its partners (capWaits).
    const { g, evidence } = capWaits(
      backed(grade(share, 20, 40), r.instances),
      `from ${r.instances} instances${ran < 1 ? `; ${us(perInstance * ran)} per instance once the time the threads waited to run is taken out` : ''}`,
      loaded,
    );
    if (!g) continue;
    out.push({
      kind: 'region-overhead',
      severity: g,
      score: share,
      location: r.location,
      construct: r.name,
      evidence,
      message:
        `${r.instances} instances of about ${us(perInstance)} per thread; forking and joining (${p0((100 * r.threadManagement) / Math.max(1, r.time))}) ` +
        `and waiting at its barriers (${p0((100 * (r.imbalance + r.limitedParallelism)) / Math.max(1, r.time))}) take ${p0(share)} ` +
        "of the threads' time in it. Open one parallel region around the loop that repeats it (the loop inside it, work-shared), " +
        'or give each instance more work.',
    });
  }

  // ---- work-shared loops, and imbalance seen only at a region's end ----
  // Judged by the threads' time in the construct, the slowest against the mean. That is wall time: on
  // a loaded machine it holds the time a thread waited to run, unevenly between threads, and a
  // balanced construct looks imbalanced (3,000 balanced short regions beside the rest of a test
  // suite: 1.65x). The samples of the threads' own code in it are a second witness, but not a clean
  // one either: a thread is sampled as it runs and once more as it resumes after waiting, so on a
  // loaded machine the samples of short constructs count where threads were preempted (LULESH beside
  // a CPU hog: loops 1.5x apart in samples, even in time). A finding needs both: with MIN_STRONG
  // samples its grade is the lower of the two; with fewer, on an oversubscribed run, at most weak.
  let runTime = Math.max(1, effort);
  for (const c of a.constructs) for (const p of c.perThread) runTime = Math.max(runTime, p.incl);
  const gradeOf = (ratio: number): Grade => (ratio >= 1.5 ? 'strong' : ratio >= 1.2 ? 'weak' : null);
  // `least`: the time (of the slowest thread, or its extra over the mean) that must be 1% of the run.
  // Loops, not Math.max(...values): a spread over every construct of every thread can overflow the stack.
  const imbalance = (times: number[], counts: number[], events: number, what: 'loop' | 'region', least: (max: number, mean: number) => number) => {
    const max = times.reduce((m, x) => Math.max(m, x), 0);
    const mean = times.reduce((n, x) => n + x, 0) / times.length;
    if (mean <= 0 || least(max, mean) < 0.01 * runTime) return null;
    const ratio = max / mean;
    const sampled = counts.reduce((n, x) => n + x, 0);
    const instances = `${events} ${what === 'loop' ? 'loop instances' : 'implicit tasks'} over ${times.length} threads`;
    // A region's imbalance needs MIN_WEAK implicit tasks behind it; a loop's rests on its time, at
    // least 1% of the run (one instance 240 ms longer on one thread is a finding).
    let g = what === 'region' ? backed(gradeOf(ratio), events) : gradeOf(ratio);
    let evidence = `from ${instances}`;
    if (sampled >= MIN_STRONG) {
      const countRatio = counts.reduce((m, x) => Math.max(m, x), 0) / (sampled / counts.length);
      const byTime = g;
      g = lower(g, gradeOf(countRatio));
      evidence += `, and ${sampled} samples of their work there (the most ${countRatio.toFixed(2)}x the mean)`;
      // Loaded, the samples lean towards even: each thread is also sampled as it resumes after
      // waiting to run (the imbalanced test loop: 1.96x idle, 1.44x beside a hog, times alike).
      if (loaded && byTime === 'strong' && g === 'weak') {
        evidence += `; ${OVERSUBSCRIBED_CAP}, where each thread is also sampled as it resumes after waiting to run, which evens the samples out`;
      }
    } else if (loaded) {
      if (g === 'strong') g = 'weak';
      // what a strong finding would have rested on, named first
      evidence =
        `from ${sampled} samples of the threads' work in the ${what}, fewer than ${MIN_STRONG}, and ${instances} timed: ` +
        'the machine was oversubscribed, and threads that waited to run unevenly look imbalanced too';
    }
    return g ? { g, max, mean, ratio, slowest: times.indexOf(max), evidence } : null;
  };
  for (const c of a.constructs) {
    if (c.kind !== 'OpenMP_Work_Loop' || c.perThread.length < 2) continue;
    const calls = c.perThread.reduce((n, p) => n + (p.calls ?? 0), 0);
    const found = imbalance(c.perThread.map((p) => p.incl), c.perThread.map((p) => p.sampledWork), calls || c.perThread.length, 'loop', (max) => max);
    if (!found) continue;
    const { g, max, mean, ratio, evidence } = found;
    const slow = c.perThread[found.slowest];
    const share = (100 * (max - mean)) / max;
    out.push({
      kind: 'loop-imbalance',
      severity: g,
      score: share,
      location: c.location,
      construct: c.name,
      evidence,
      message:
        `load imbalance: the slowest thread (${slow.thread}) spends ${us(max)} in the loop, ${ratio.toFixed(2)}x the mean of ${us(mean)} ` +
        `(${p0(share)} of the slowest thread's time is waited by the others). Use schedule(dynamic) / schedule(guided) or balance the iterations.`,
    });
  }

  // gcc computes a static schedule in the compiled code: the runtime reports no work-shared loop, and
  // the imbalance shows only as the threads' wait at the region's closing barrier. Raised when the
  // runtime reported no loop at all, so that a loop found above is not named twice.
  // Judged by the threads' work in the region (their implicit tasks' time less every wait in them;
  // their samples of work there must agree, as above): the slowest thread's work against the
  // mean. Not by the wait at the end: that also holds the fork's skew of regions too short to matter
  // and, on a loaded machine, the time a partner waited to run (a worker waits for the release of a
  // master that waits to run). The extra work must be at least 1% of the run.
  if (!a.constructs.some((c) => c.kind === 'OpenMP_Work_Loop')) {
    for (const r of a.regions) {
      if (r.perThread.length < 2) continue;
      const work = r.perThread.map((x) => Math.max(0, x.exec - x.sync - x.imbalance - x.limitedParallelism));
      const found = imbalance(work, r.perThread.map((x) => x.sampledWork), r.count, 'region', (max, mean) => max - mean);
      if (!found) continue;
      const { g, max, mean, ratio, evidence } = found;
      const share = (100 * (max - mean)) / max;
      out.push({
        kind: 'region-imbalance',
        severity: g,
        score: share,
        location: r.location,
        construct: r.name,
        evidence,
        message:
          `load imbalance: the slowest thread works ${us(max)} in the region, ${ratio.toFixed(2)}x the mean of ${us(mean)} ` +
          `(${p0(share)} of its work is waited by the others at the region's end; the runtime reported no ` +
          'work-shared loop: a static schedule computed by the compiled code). Use schedule(dynamic) / schedule(guided) or balance the iterations.',
      });
    }
  }

  // ---- serial sections ----
  // Judged in samples, not in their time: a serial sample of a preempted thread carries the time it
  // waited to run (5 ms in one sample of main's first call into the runtime, beside a CPU hog) and
  // charges T - 1 threads of idleness for it, where parallel code preempted alike charges none.
  for (const m of contexts) {
    const { absIdleness: abs, relIdleness: rel, work } = m.sampled;
    if (!m.serial || abs < 10 || rel < 30) continue;
    const g = backed(abs >= 25 ? 'strong' : 'weak', work);
    if (!g) continue;
    const line = m.ctx !== undefined && hotLine ? hotLine(m.ctx) : null;
    const leaf = m.path.split(' => ').pop() ?? m.path;
    out.push({
      kind: 'serial-section',
      severity: g,
      score: abs,
      // The function, not its hottest line: which of a loop's lines collects the most samples varies
      // from run to run (the line stays in the message).
      location: line ? line.replace(/:\d+ \(/, ' (') : leaf,
      construct: m.path,
      evidence: `from ${work} samples of serial work in this context`,
      message:
        `serial code in ${leaf}${line ? ` (hottest line ${line})` : ''} leaves threads idle: ${abs.toFixed(1)}% of the ` +
        `whole effort is idleness blamed on it, ${rel.toFixed(0)}% relative, counted in samples (${a.maxThreads} threads, one working). ` +
        'Parallelize it or overlap it with parallel work.',
    });
  }

  // ---- locks ----
  for (const r of a.lockReleases) {
    const share = effort > 0 ? (100 * r.blame) / effort : 0;
    // Evidence: the samples behind the blame (its time over the mean time of a sample), or the
    // releases with waiters where those are more.
    const perSample = a.samples > 0 ? sampledTotal(a.activity) / a.samples : 0;
    const blamed = perSample > 0 ? Math.round(r.blame / perSample) : 0;
    const g = backed(grade(share, 5, 15), Math.max(r.count, blamed));
    if (!g) continue;
    out.push({
      kind: 'lock-contention',
      severity: g,
      score: share,
      location: r.location,
      construct: 'lock release',
      evidence: `from ${r.count} releases with waiters and about ${blamed} samples waiting`,
      message: `${share.toFixed(1)}% of the effort is threads waiting for the lock released here (${r.count} releases with waiters). Shorten the critical section or split the lock.`,
    });
  }
  return mergeCopies(out).sort((x, y) => (x.severity === y.severity ? y.score - x.score : x.severity === 'strong' ? -1 : 1));
}

/**
 * Copies of one construct (the compiler inlined it into several callers: one source line, events
 * named `… #<id>`) make one finding: the strongest, saying how many copies share it.
 */
function mergeCopies(found: OmpDiagnosis[]): OmpDiagnosis[] {
  const groups = new Map<string, OmpDiagnosis[]>();
  for (const d of found) {
    const key = `${d.kind}\u0000${d.location}\u0000${baseName(d.construct)}`;
    const g = groups.get(key);
    if (g) g.push(d);
    else groups.set(key, [d]);
  }
  const out: OmpDiagnosis[] = [];
  for (const g of groups.values()) {
    const best = g.reduce((m, d) => (d.severity === 'strong' && m.severity !== 'strong') || (d.severity === m.severity && d.score > m.score) ? d : m);
    if (g.length === 1) out.push(best);
    else out.push({ ...best, construct: baseName(best.construct), message: `${best.message} (${g.length} inlined copies of this construct; the figures are of the strongest.)` });
  }
  return out;
}
