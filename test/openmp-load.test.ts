/**
 * The OpenMP diagnoses hold on a busy machine: each program of a kind the diagnoses are made for
 * (fine-grained tasks, a single task producer, many short parallel regions, an imbalanced loop, a
 * serial section), built with clang and with gcc, is measured as a user measures it (`hyprof run`, 2
 * threads) once as the machine is and once beside a CPU hog of one busy process per CPU the program
 * may use, which doubles the load. Both runs must give the same strong findings (kind, grade, a line
 * of their locations in common; graded weak on one side only where fewer than MIN_STRONG samples or
 * events stood behind it there, or where the run was oversubscribed and the finding says that load
 * spoiled what its grade rests on) and the finding the program was written for; a weak finding near its
 * threshold may differ (logged). The hogged run must say it ran oversubscribed.
 */
import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { readOpenmpFile } from '../src/analysis/openmp.js';
import { MIN_STRONG, OVERSUBSCRIBED_CAP } from '../src/analysis/openmp-diagnose.js';
import type { OpenmpAnalysis } from '../src/analysis/openmp-model.js';
import { cpuHog, hyprof, repoRoot, tmpDir } from './helpers/native.js';
import { buildOmp } from './openmp-helpers.js';

const KERNELS = join(repoRoot, 'test', 'native', 'omp_kernels.c');
const CONSTRUCTS = join(repoRoot, 'test', 'native', 'omp_constructs.c');

interface Program {
  name: string;
  source: string;
  args: string[];
  env?: Record<string, string>;
  /** The kinds of which one must be found (gcc reports no work-shared loop: the region's end shows it). */
  expect: string[];
  /** Kinds this program sits on the threshold of, left out of the comparison (logged). */
  borderline?: string[];
}

const PROGRAMS: Program[] = [
  // fib(22) at 20 kHz. A [strong] finding needs 50 samples behind its share (openmp-diagnose.ts
  // MIN_STRONG), and wall-clock samples of a thread waiting for a CPU merge into one: at 10 kHz it
  // gave 76 samples idle and 46 beside the hog while the rest of the suite loaded the machine (a weak
  // finding for lack of evidence, its share unchanged); at 20 kHz, alone, 157-490 in four runs.
  // libomp's taskwait under a hog spins with sched_yield, each yield a hog's time slice: fib(27)
  // took 1-3 minutes there (53 s without hyprof), fib(22) 10-20 s.
  // Sampled by CPU time, as the LOAD line advises on an oversubscribed run: wall-clock samples of a
  // thread waiting to run merge into one, and beside the hog the gcc build drew 53-516 samples of
  // task work in six runs and fewer than 20 in one of five test runs (no finding then), CPU-time
  // samples 513-946 (bench/RESULTS.md, "OpenMP findings under load").
  { name: 'fine tasks (fib without cutoff)', source: KERNELS, args: ['fib', '22'], env: { HYPROF_PERIOD_US: '50', HYPROF_SAMPLE_SOURCE: 'task-clock' }, expect: ['tasks-too-fine'] },
  // 100,000 tasks of ~0.2 µs, created by one thread: the other waits ~80% idle, ~99% under the hog
  // (its waits yield to the hog). Tasks of 1,500 iterations left it at 34–43% idle, on the strong
  // threshold of 40%, where two idle runs already disagree.
  { name: 'one task producer', source: KERNELS, args: ['producer', '100000', '200'], env: { HYPROF_OPENMP: 'full' }, expect: ['task-creation-bottleneck'],
    // the runtime's part of these tasks' cost is 40–50%: "too fine" is on its strong threshold
    borderline: ['tasks-too-fine'] },
  { name: 'many short regions', source: KERNELS, args: ['regions', '3000'], expect: ['region-overhead'] },
  // At 4 kHz: a strong imbalance needs MIN_STRONG samples of the threads' work to agree with their
  // times when the machine is oversubscribed (times stretch unevenly there); at 1 kHz this run takes
  // 23-37.
  { name: 'imbalanced loop', source: KERNELS, args: ['imbalance', '60'], env: { HYPROF_PERIOD_US: '250' }, expect: ['loop-imbalance', 'region-imbalance'] },
  { name: 'serial section', source: CONSTRUCTS, args: ['serial'], expect: ['serial-section'] },
];

/** One busy process per CPU. */
const hog = (): ChildProcess[] => cpuHog();

async function measure(exe: string, p: Program, tag: string): Promise<OpenmpAnalysis> {
  const dir = join(tmpDir(`omp-load-${tag}`), 'prof');
  const r = await hyprof(['run', '--dir', dir, '--', exe, ...p.args], {
    env: { OMP_NUM_THREADS: '2', HYPROF_PERIOD_US: '1000', ...p.env },
    timeoutMs: 600_000, // a loaded machine (the point of the test) stretches the run
  });
  if (r.code !== 0) throw new Error(`hyprof run ${p.args.join(' ')} exited ${r.code}: ${r.stderr}`);
  const f = readOpenmpFile(dir);
  if (f.processes.length !== 1) throw new Error(`expected one OpenMP process, got ${f.processes.length}`);
  return f.processes[0];
}

let skip: string[] = [];
type Diagnosis = OpenmpAnalysis['diagnoses'][number];
const lines = (d: Diagnosis): string[] => d.location.split(', ');
/** The findings of `a` that `b` has no finding of the same kind (and grade) for at a shared line. */
const unmatched = (a: Diagnosis[], b: Diagnosis[], grade = true): string[] =>
  a
    .filter((d) => !b.some((e) => e.kind === d.kind && (!grade || e.severity === d.severity) && lines(e).some((l) => lines(d).includes(l))))
    .map((d) => `${d.kind} at ${d.location} [${d.severity}]`);
const described = (a: OpenmpAnalysis): string =>
  a.diagnoses.map((d) => `${d.kind} at ${d.location} [${d.severity}, ${d.score.toFixed(1)}, ${d.evidence}]`).join('; ') || 'none';
const findings = (a: OpenmpAnalysis): string[] =>
  a.diagnoses.filter((d) => !skip.includes(d.kind)).map((d) => `${d.kind} at ${d.location} [${d.severity}]`).sort();

for (const cc of ['clang', 'gcc'] as const) {
  for (const p of PROGRAMS) {
    test.serial(`${cc}: ${p.name}: the same findings beside a CPU hog as without it`, async (t) => {
      skip = p.borderline ?? [];
      const exe = buildOmp(p.source === KERNELS ? 'omp_kernels' : 'omp_constructs', p.source, cc);
      const plain = await measure(exe, p, `${cc}-plain`);
      const hogs = hog();
      let loaded: OpenmpAnalysis;
      try {
        loaded = await measure(exe, p, `${cc}-hog`);
      } finally {
        for (const h of hogs) h.kill('SIGKILL');
      }
      t.true(
        plain.diagnoses.some((d) => p.expect.includes(d.kind)),
        `no ${p.expect.join(' / ')} finding: ${JSON.stringify(findings(plain))}`,
      );
      // Strong findings and the finding the program is made for must not move; a weak one (past
      // the lower threshold only) may still appear on one side near its threshold: logged.
      // A sampled finding's location lists the construct lines that drew a tenth of the samples: a
      // line near that share may be listed in one run and not the other. Two findings are the same
      // when kind and grade agree and their locations share a line.
      const detail = `plain: ${described(plain)}\nloaded: ${described(loaded)}`;
      t.log(detail);
      const strong = (a: OpenmpAnalysis) => a.diagnoses.filter((d) => d.severity === 'strong' && !skip.includes(d.kind));
      // The one exception: the other run has the same finding, graded weak only because fewer than
      // MIN_STRONG samples or events stood behind it (the evidence rule, openmp-diagnose.ts): a hog
      // that leaves the program's threads a few slices of CPU leaves few samples in short tasks (24
      // against 164 idle, in one run of the whole suite). Its share still decides its kind; the
      // grade says how sure it is, and the report prints both.
      // The same holds where load spoils what a grade rests on (barrier waits that hold a partner's
      // wait to run; samples that even out as threads resume): graded weak on an oversubscribed run,
      // saying so.
      const capped = (a: OpenmpAnalysis) =>
        a.diagnoses.filter(
          (d) => d.severity === 'weak' && (Number(/^from (\d+) /.exec(d.evidence)?.[1]) < MIN_STRONG || (a.load.oversubscribed && d.evidence.includes(OVERSUBSCRIBED_CAP))),
        );
      const lost = (a: OpenmpAnalysis, b: OpenmpAnalysis) => {
        const gone = strong(a).filter((d) => unmatched([d], strong(b)).length > 0);
        return unmatched(gone, capped(b), false);
      };
      t.deepEqual(lost(plain, loaded), [], `strong findings lost with the load\n${detail}`);
      t.deepEqual(lost(loaded, plain), [], `strong findings new with the load\n${detail}`);
      const made = (a: OpenmpAnalysis) => a.diagnoses.filter((d) => p.expect.includes(d.kind));
      t.deepEqual(unmatched(made(plain), made(loaded), false), [], `the finding the program is made for changed with the load\n${detail}`);
      t.deepEqual(unmatched(made(loaded), made(plain), false), [], `the finding the program is made for changed with the load\n${detail}`);
      const weakOnly = [...findings(plain), ...findings(loaded)].filter((f) => !findings(plain).includes(f) || !findings(loaded).includes(f));
      if (weakOnly.length > 0) t.log(`weak findings on one side only: ${weakOnly.join('; ')}`);
      t.true(loaded.load.oversubscribed, `the hogged run was not said to be oversubscribed: ${JSON.stringify(loaded.load)}`);
      t.true(loaded.load.waitShare !== null && loaded.load.waitShare > 0.2, `wait share ${loaded.load.waitShare}`);
      // The runtime recorded its CPUs' idle time: beside the hog they hardly idled, so the wait is load.
      t.true(loaded.load.loadWaitShare != null && loaded.load.loadWaitShare > 0.2, `wait beyond the CPUs' idle time ${loaded.load.loadWaitShare}`);
      t.true(plain.load.loadWaitShare != null && plain.load.loadWaitShare <= plain.load.waitShare!, JSON.stringify(plain.load));
      for (const d of loaded.diagnoses) t.regex(d.evidence, /^from \d+ /, `${d.kind}: evidence stated`);
    });
  }
}
