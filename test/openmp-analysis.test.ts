/**
 * The analysis equations on hand-made inputs with exact answers: idleness blame (seed 000 equations
 * 1 and 2), lock blame, and the task diagnoses' thresholds.
 */
import test from 'ava';
import { analyzeOpenmp } from '../src/analysis/openmp-analysis.js';
import { fineRuling } from '../src/analysis/openmp-diagnose.js';
import { applyConstructNames, type ConstructName } from '../src/analysis/openmp-names.js';
import type { OmptData, OmpTaskStat, OmpThread } from '../src/analysis/openmp-raw.js';
import { loadLine } from '../src/analysis/run-load.js';
import { RawContexts, RawStats, type RawProcess } from '../src/samples/raw-model.js';

// Events: 0 root, 1 parallel region, 2 task construct. Contexts: root 10n, region 11n, task 12n.
function proc(): RawProcess {
  const contexts = RawContexts.of([
    { context: 10n, parent: 0n, event: 0 },
    { context: 11n, parent: 10n, event: 1 },
    { context: 12n, parent: 11n, event: 2 },
  ]);
  return {
    file: 'synthetic.raw',
    version: 1,
    info: { pid: 1, ppid: 0, node: 0, flags: 0, startNs: 0n, stopNs: 1n, metrics: ['TIME'], attributes: [] },
    events: [
      { id: 0, kind: 3, base: 0, name: '.TAU application', group: 'TAU_UTILITY' },
      { id: 1, kind: 4, base: 1, name: 'OpenMP_Parallel_Region @0x10', group: 'TAU_OPENMP' },
      { id: 2, kind: 4, base: 2, name: 'OpenMP_Task @0x20', group: 'TAU_OPENMP' },
    ],
    contexts,
    threads: [0, 1].map((index) => ({
      index, tid: 100 + index, name: '', startNs: 0n, stopNs: 1n, flags: 0,
      stats: RawStats.of(contexts, 1, [{ context: 12n, calls: 1, childCalls: 0, incl: [1], excl: [1] }]),
      open: [], userStats: [], drops: [], warnings: [], samples: [],
    })),
    userEvents: new Map(),
    maps: [],
    sampling: null,
  };
}

const names = new Map<number, ConstructName>([
  [1, { event: 1, kind: 0, name: 'OpenMP_Parallel_Region main [{a.c} {5, 0}]', location: 'a.c:5', function: 'main' }],
  [2, { event: 2, kind: 15, name: 'OpenMP_Task f [{a.c} {9, 0}]', location: 'a.c:9', function: 'f' }],
]);

function thread(index: number, over: Partial<OmpThread>): OmpThread {
  return { index, dispatch: 0, dispatchCount: 0, starvation: 0, lost: 0, blame: [], regions: [], tasks: [], releases: [], ...over };
}

/** A context's blame; its samples each 1 ns of time unless `counts` says otherwise. */
const blame = (context: bigint, work: number, perWorking: number, lockBlame = 0, counts?: { work: number; perWorking: number }) => ({
  context, samples: counts?.work ?? work, work, idle: 0, overhead: 0, lockWait: 0, other: 0, workPerWorking: perWorking, lockBlame,
  counts: { work: counts?.work ?? work, overhead: 0, perWorking: counts?.perWorking ?? perWorking, lockBlame },
});

test('equation 1 and 2: serial work carries (T-1)/T relative idleness, balanced parallel work none', (t) => {
  const omp: OmptData = {
    level: 'full', cores: 4, maxTeam: 2, runtime: 'test', unreleasedWait: 0, waitTableFull: 0,
    constructs: [{ event: 1, kind: 0, codeptr: 0x10n }, { event: 2, kind: 15, codeptr: 0x20n }],
    threads: [
      // 100 ns of serial work with one thread working; 100 ns each of parallel work with two.
      thread(0, { blame: [blame(10n, 100, 100), blame(11n, 100, 50)] }),
      thread(1, { blame: [blame(11n, 100, 50)] }),
    ],
  };
  const p = proc();
  applyConstructNames(p, names); // as the resolve pipeline does before the analysis
  const a = analyzeOpenmp({ proc: p, omp, names });
  const serial = a.contexts.find((c) => c.path === '.TAU application')!;
  const par = a.contexts.find((c) => c.path === '.TAU application => OpenMP_Parallel_Region main [{a.c} {5, 0}]')!;
  t.is(serial.threadIdleness, 100); // T * 100 - 100
  t.is(serial.coreIdleness, 300); // C * 100 - 100
  t.is(par.threadIdleness, 0);
  t.is(par.coreIdleness, 200); // 4 * 100 - 200: two cores unused
  t.true(serial.serial);
  t.false(par.serial);
  // effort = work 300 + thread idleness 100
  t.is(serial.relIdleness, 50);
  t.is(serial.absIdleness, 25);
  t.is(par.absWork, 50);
  t.is(a.totals.threadIdleness, 100);
  // The same in samples (here one per ns).
  t.deepEqual(serial.sampled, { work: 100, threadIdleness: 100, absIdleness: 25, relIdleness: 50 });
});

test('a serial section is judged in samples: a preempted serial sample carrying its wait to run makes none', (t) => {
  const omp: OmptData = {
    level: 'full', cores: 2, maxTeam: 2, runtime: 'test', unreleasedWait: 0, waitTableFull: 0,
    constructs: [{ event: 1, kind: 0, codeptr: 0x10n }, { event: 2, kind: 15, codeptr: 0x20n }],
    threads: [],
  };
  // Serial code: 100 samples, 50 ms by their time (one waited 45 ms to run, as beside a CPU hog);
  // parallel code: 2 x 900 samples of 0.1 ms, both threads working.
  const serialWith = (serialMs: number) =>
    analyzeOpenmp({
      proc: proc(), names,
      omp: { ...omp, threads: [
        thread(0, { blame: [blame(10n, serialMs * 1e6, serialMs * 1e6, 0, { work: 100, perWorking: 100 }), blame(11n, 90e6, 45e6, 0, { work: 900, perWorking: 450 })] }),
        thread(1, { blame: [blame(11n, 90e6, 45e6, 0, { work: 900, perWorking: 450 })] }),
      ] },
    });
  const loaded = serialWith(50);
  const serial = loaded.contexts.find((c) => c.serial)!;
  // By time, 50 ms of serial work and as much idleness against 180 ms of parallel work: 50 / 280 =
  // 17.9% idleness, a finding; by samples, 100 / (100 + 100 + 1800) = 5%: none.
  t.true(serial.absIdleness > 17 && serial.absIdleness < 18, `${serial.absIdleness}`);
  t.is(serial.sampled.absIdleness, 5);
  t.deepEqual(loaded.diagnoses.filter((d) => d.kind === 'serial-section'), []);

  // 900 serial samples against the same parallel work: 900 / (900 + 900 + 1800) = 25%, strong.
  const real = analyzeOpenmp({
    proc: proc(), names,
    omp: { ...omp, threads: [
      thread(0, { blame: [blame(10n, 90e6, 90e6, 0, { work: 900, perWorking: 900 }), blame(11n, 90e6, 45e6, 0, { work: 900, perWorking: 450 })] }),
      thread(1, { blame: [blame(11n, 90e6, 45e6, 0, { work: 900, perWorking: 450 })] }),
    ] },
  });
  const found = real.diagnoses.filter((d) => d.kind === 'serial-section');
  t.deepEqual(found.map((d) => [d.severity, d.evidence]), [['strong', 'from 900 samples of serial work in this context']]);
  t.regex(found[0].message, /25\.0% of the whole effort is idleness blamed on it, 50% relative, counted in samples/);
});

test('task diagnoses are graded weak / strong by their documented thresholds', (t) => {
  const base: Omit<OmptData, 'threads'> = {
    level: 'full', cores: 2, maxTeam: 2, runtime: 'test', unreleasedWait: 0, waitTableFull: 0,
    constructs: [{ event: 1, kind: 0, codeptr: 0x10n }, { event: 2, kind: 15, codeptr: 0x20n }],
  };
  const region = (idle: number) => ({ event: 1, count: 1, exec: 1000e6, sync: 0, imbalance: idle, limitedParallelism: 0, threadManagement: 0 });
  // Tasks of 1.0-1.1 us (bucket 64: [1024, 1152) ns) for which the runtime spends `dispatch` ns each.
  const task = (n: number, over: Partial<OmpTaskStat> = {}): OmpTaskStat => ({
    event: 2, created: n, executed: n, sum: n * 1088, max: 1150, min: 1030, spawned: 0, sumSq: n * 1.2, hist: [[64, n]], ...over,
  });
  const fineWith = (dispatch: number) =>
    analyzeOpenmp({
      proc: proc(), names,
      omp: { ...base, threads: [0, 1].map((i) => thread(i, { tasks: [task(5000)], dispatch: 5000 * dispatch, dispatchCount: 5000, regions: [region(0)] })) },
    });
  const strong = fineWith(2000); // 2 us of runtime per 1.09 us task: 65% of the cost
  t.deepEqual(strong.diagnoses.map((d) => [d.kind, d.severity]), [['tasks-too-fine', 'strong']]);
  t.is(strong.diagnoses[0].location, 'a.c:9');
  t.regex(strong.diagnoses[0].message, /10000 instances with a median duration of 1\.09 us/);
  t.deepEqual(fineWith(500).diagnoses.map((d) => [d.kind, d.severity]), [['tasks-too-fine', 'weak']]); // 31%
  t.deepEqual(fineWith(100).diagnoses, []); // 8%: nothing to say
  // The median is interpolated inside its bucket, not the bucket's value.
  t.is(Math.round(strong.tasks[0].medianNs), 1088);

  // 3 tasks of 150 ms on 2 threads, the second thread waiting 40% of the region: too coarse, strong.
  // Timed waits on an oversubscribed run (threads waited to run half their time) make at most weak.
  const loadedProc = () => {
    const p = proc();
    p.info.attributes.push(['Threads Run Time (ns)', '1000000000'], ['Threads Run-Queue Wait (ns)', '1000000000']);
    return p;
  };
  const coarse = (idle: number, spawned = 0, p = proc()) =>
    analyzeOpenmp({
      proc: p, names,
      omp: { ...base, threads: [
        thread(0, { tasks: [task(2, { created: 3, sum: 300e6, max: 150e6, min: 150e6, spawned, hist: [[220, 2]] })], regions: [region(0)] }),
        thread(1, { tasks: [task(1, { created: 0, sum: 150e6, max: 150e6, min: 150e6, hist: [[220, 1]] })], regions: [region(idle)] }),
      ] },
    });
  t.deepEqual(coarse(800e6).diagnoses.map((d) => [d.kind, d.severity]), [['tasks-too-coarse', 'strong']]);
  t.deepEqual(coarse(400e6).diagnoses.map((d) => [d.kind, d.severity]), [['tasks-too-coarse', 'weak']]); // 20%
  t.deepEqual(coarse(100e6).diagnoses, []); // 5%
  // A generator (its instances create the other tasks) is not too coarse, however few.
  t.deepEqual(coarse(800e6, 2000).diagnoses, []);
  const coarseLoaded = coarse(800e6, 0, loadedProc()).diagnoses;
  t.deepEqual(coarseLoaded.map((d) => [d.kind, d.severity]), [['tasks-too-coarse', 'weak']]);
  t.regex(coarseLoaded[0].evidence, /; at most weak: the machine was oversubscribed/);

  // One creator, the other thread runs nearly all and waits half the region: creation bottleneck.
  const bottleneck = (created0: number, created1: number, p = proc()) =>
    analyzeOpenmp({
      proc: p, names,
      omp: { ...base, threads: [
        thread(0, { tasks: [task(1, { created: created0, sum: 1e6, max: 1e6, min: 1e6, hist: [[140, 1]] })], regions: [region(0)] }),
        thread(1, { tasks: [task(39, { created: created1, sum: 39e6, max: 1e6, min: 1e6, hist: [[140, 39]] })], regions: [region(500e6)] }),
      ] },
    });
  const b = bottleneck(400, 0);
  t.deepEqual(b.diagnoses.map((d) => [d.kind, d.severity]), [['task-creation-bottleneck', 'strong']]);
  const bLoaded = bottleneck(400, 0, loadedProc()).diagnoses;
  t.deepEqual(bLoaded.map((d) => [d.kind, d.severity]), [['task-creation-bottleneck', 'weak']]);
  t.regex(bLoaded[0].evidence, /^from 400 tasks created; at most weak: the machine was oversubscribed/);
  t.regex(b.diagnoses[0].message, /thread 0 creates 100% of the 400 tasks/);
  t.is(b.diagnoses[0].evidence, 'from 400 tasks created');
  // 80% created by one thread: still there, graded weak (no cliff at 90%).
  t.deepEqual(bottleneck(320, 80).diagnoses.map((d) => [d.kind, d.severity]), [['task-creation-bottleneck', 'weak']]);
  // Too few tasks to rest a finding on: 40 is weak at most, 10 nothing (MIN_STRONG, MIN_WEAK).
  t.deepEqual(bottleneck(40, 0).diagnoses.map((d) => [d.kind, d.severity]), [['task-creation-bottleneck', 'weak']]);
  t.deepEqual(bottleneck(10, 0).diagnoses, []);
});

test('tasks too fine at level full: the samples decide with 50, and with 20-49 where they grade higher', (t) => {
  // BOTS fib without cut-off, clang, 2 threads: durations give 8% (the tool's own work per task is
  // in them), 40 of the construct's 46 samples are the runtime's.
  t.deepEqual(fineRuling(8, 317810, { mgmt: 40, n: 46 }), { grade: 'weak', bySamples: true });
  t.deepEqual(fineRuling(8, 317810, { mgmt: 13, n: 15 }), { grade: null, bySamples: false }); // too few samples
  t.deepEqual(fineRuling(8, 317810, { mgmt: 50, n: 56 }), { grade: 'strong', bySamples: true });
  // Durations that grade higher than a few samples keep deciding; with 50 samples the samples do.
  t.deepEqual(fineRuling(71, 121392, { mgmt: 18, n: 20 }), { grade: 'strong', bySamples: false });
  t.deepEqual(fineRuling(71, 121392, { mgmt: 5, n: 60 }), { grade: null, bySamples: true });
  t.deepEqual(fineRuling(41, 121392, { mgmt: 5, n: 30 }), { grade: 'weak', bySamples: false });
  // Too few instances: nothing from durations; the samples alone.
  t.deepEqual(fineRuling(null, 40, { mgmt: 30, n: 35 }), { grade: 'weak', bySamples: true });
  t.deepEqual(fineRuling(65, 10000, null), { grade: 'strong', bySamples: false });
});

test('many short parallel regions are diagnosed with the region; overhead classes stay within its time', (t) => {
  const omp: OmptData = {
    level: 'basic', cores: 2, maxTeam: 2, runtime: 'test', unreleasedWait: 0, waitTableFull: 0,
    constructs: [{ event: 1, kind: 0, codeptr: 0x10n }],
    threads: [
      // 20000 instances of 12 us per thread: 4 us forking / joining, 3 us waiting at the barrier
      thread(0, { regions: [{ event: 1, count: 20000, exec: 20000 * 10e3, sync: 0, imbalance: 20000 * 3e3, limitedParallelism: 0, threadManagement: 20000 * 2e3 }] }),
      thread(1, { regions: [{ event: 1, count: 20000, exec: 20000 * 9e3, sync: 0, imbalance: 0, limitedParallelism: 0, threadManagement: 20000 * 3e3 }] }),
    ],
  };
  const a = analyzeOpenmp({ proc: proc(), omp, names });
  const r = a.regions[0];
  t.is(r.instances, 20000);
  t.is(r.time, 20000 * 24e3);
  const share = (r.sync + r.imbalance + r.limitedParallelism + r.threadManagement) / r.time;
  t.true(share <= 1, `classes ${share} of the region's time`);
  t.deepEqual(a.diagnoses.map((d) => [d.kind, d.severity, d.location]), [['region-overhead', 'weak', 'a.c:5']]);
  t.regex(a.diagnoses[0].message, /^20000 instances of about 12\.0 us per thread/);

  // 9 of 12 us forking, joining and waiting: strong, but only where the machine was not oversubscribed.
  const heavy = (attributes: Array<[string, string]>) => {
    const p = proc();
    p.info.attributes.push(...attributes);
    const region = (wait: number) => ({ event: 1, count: 20000, exec: 20000 * 10e3, sync: 0, imbalance: 20000 * wait, limitedParallelism: 0, threadManagement: 20000 * 2e3 });
    return analyzeOpenmp({ proc: p, names, omp: { ...omp, threads: [thread(0, { regions: [region(7e3)] }), thread(1, { regions: [region(7e3)] })] } });
  };
  const idleRun = heavy([['Threads Run Time (ns)', '1000000000'], ['Threads Run-Queue Wait (ns)', '10000000']]);
  const idle = idleRun.diagnoses;
  t.is(loadLine(idleRun.load), null);
  t.deepEqual(idle.map((d) => [d.kind, d.severity]), [['region-overhead', 'strong']]);
  t.is(idle[0].evidence, 'from 20000 instances');
  // Threads that waited to run half their time: the waits hold that; graded weak, and said why.
  const loadedRun = heavy([['Threads Run Time (ns)', '1000000000'], ['Threads Run-Queue Wait (ns)', '1000000000']]);
  const loaded = loadedRun.diagnoses;
  // The report's first line says so, and what the analysis did about it.
  t.regex(loadLine(loadedRun.load)!, /^The program ran oversubscribed: its threads waited to run 50% of their time .*those that rest on timed waits at barriers are at most weak\.$/);
  // Sampled by the wall clock: the line says that samples thin out where threads wait, and what does not.
  const wallRun = heavy([['Threads Run Time (ns)', '1000000000'], ['Threads Run-Queue Wait (ns)', '1000000000'], ['HYPROF_SAMPLE_SOURCE', 'itimer-wall']]);
  t.regex(loadLine(wallRun.load)!, /at most weak\. Samples were taken by the wall clock, so fewer where threads waited to run: HYPROF_SAMPLE_SOURCE=task-clock samples by CPU time, which load does not change\.$/);
  const cpuRun = heavy([['Threads Run Time (ns)', '1000000000'], ['Threads Run-Queue Wait (ns)', '1000000000'], ['HYPROF_SAMPLE_SOURCE', 'task-clock']]);
  t.regex(loadLine(cpuRun.load)!, /at most weak\.$/);
  t.deepEqual(loaded.map((d) => [d.kind, d.severity]), [['region-overhead', 'weak']]);
  t.regex(loaded[0].evidence, /^from 20000 instances; 6\.00 us per instance once .*; at most weak: the machine was oversubscribed/);

  // Waits while the process's CPUs idled are the scheduler's placement, not load (a short libomp run
  // on an idle machine: 30% wait, as much idle time): not oversubscribed, the strong grade stays.
  const placed = heavy([['Threads Run Time (ns)', '100000000'], ['Threads Run-Queue Wait (ns)', '43000000'], ['CPUs Idle Time (ns)', '50000000']]);
  t.false(placed.load.oversubscribed);
  t.is(placed.load.loadWaitShare, 0);
  t.is(loadLine(placed.load), null);
  t.deepEqual(placed.diagnoses.map((d) => [d.kind, d.severity]), [['region-overhead', 'strong']]);
  // Beyond the idle time, it is load: said, with both shares.
  const crowded = heavy([['Threads Run Time (ns)', '1000000000'], ['Threads Run-Queue Wait (ns)', '1000000000'], ['CPUs Idle Time (ns)', '100000000']]);
  t.true(crowded.load.oversubscribed);
  t.regex(loadLine(crowded.load)!, /its threads waited to run 50% of their time \(run-queue wait, schedstat, 45% beyond the idle time of its CPUs\)/);
  // Without the idle time (an older raw file), the whole wait counts, as before.
  t.true(heavy([['Threads Run Time (ns)', '100000000'], ['Threads Run-Queue Wait (ns)', '43000000']]).load.oversubscribed);
});

test('lock waiting blamed on a releasing context shows in its relative lock metric', (t) => {
  const omp: OmptData = {
    level: 'full', cores: 2, maxTeam: 2, runtime: 'test', unreleasedWait: 0, waitTableFull: 0,
    constructs: [{ event: 1, kind: 0, codeptr: 0x10n }],
    threads: [thread(0, { blame: [blame(11n, 100, 50, 100)], releases: [{ codeptr: 0x30n, blame: 100, count: 60 }] })],
  };
  const a = analyzeOpenmp({ proc: proc(), omp, names, locate: () => 'a.c:7 (f)' });
  const c = a.contexts[0];
  t.is(c.lockBlame, 100);
  t.is(c.relLockBlame, 50); // 100 / (100 work + 0 idleness + 100 lock)
  t.deepEqual(a.lockReleases, [{ location: 'a.c:7 (f)', blame: 100, count: 60 }]);
  t.true(a.diagnoses.some((d) => d.kind === 'lock-contention' && d.location === 'a.c:7 (f)'));
  // The same share on 4 releases and no sample is too little to rest a finding on.
  const few = analyzeOpenmp({ proc: proc(), omp: { ...omp, threads: [thread(0, { blame: [blame(11n, 100, 50, 100)], releases: [{ codeptr: 0x30n, blame: 100, count: 4 }] })] }, names, locate: () => 'a.c:7 (f)' });
  t.false(few.diagnoses.some((d) => d.kind === 'lock-contention'));
});

test('two construct addresses on one source line keep distinct event names', (t) => {
  const p = proc();
  p.events.push({ id: 3, kind: 4, base: 3, name: 'OpenMP_Work_Loop @0x40', group: 'TAU_OPENMP' });
  p.events.push({ id: 4, kind: 4, base: 4, name: 'OpenMP_Work_Loop @0x48', group: 'TAU_OPENMP' });
  const loopName = 'OpenMP_Work_Loop f [{a.c} {12, 0}]  ';
  applyConstructNames(
    p,
    new Map([
      [3, { event: 3, kind: 1, name: loopName, location: 'a.c:12', function: 'f' }],
      [4, { event: 4, kind: 1, name: loopName, location: 'a.c:12', function: 'f' }],
    ]),
  );
  t.is(p.events[3].name, loopName);
  t.is(p.events[4].name, 'OpenMP_Work_Loop f [{a.c} {12, 0}] #4  ');
  t.is(p.events[1].name, 'OpenMP_Parallel_Region @0x10', 'events without a new name keep theirs');
});
