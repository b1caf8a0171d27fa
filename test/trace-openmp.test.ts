/**
 * OpenMP events in the trace (HYPROF_TRACE, docs/trace.md "OpenMP"): a real OpenMP program
 * (test/native/omp_trace.c: tasks suspended at a taskwait, a lock, a critical section, an ordered
 * loop) built with clang (LLVM libomp) and with gcc (`hyprof run` substitutes libomp for libgomp),
 * traced at HYPROF_OPENMP=full, resolved, and the archive read with the OTF2 project's own readers
 * (`otf2-print`, Python's `otf2` through test/helpers/otf2_omp_check.py): every fork has its join on
 * its location, team begin / end paired per location, every created task completes exactly once,
 * task switches consistent, lock acquire / release alternating per lock with their acquisition order,
 * timestamps never back per location. `hyprof report --trace` on the real archive gives the parents'
 * suspension time at their taskwait, which the program knows (each waits for a child of known
 * length). At HYPROF_OPENMP=basic the trace holds fork / join and teams, no task or lock event.
 * One run per configuration serves all its assertions.
 */
import test, { type ExecutionContext } from 'ava';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { haveTool, hyprof, repoRoot, tmpDir } from './helpers/native.js';
import { buildOmp } from './openmp-helpers.js';
import type { TraceReport } from '../src/report/report-trace.js';
import { PYTHON, traceRunMissing } from './helpers/otf2.js';

const checker = join(repoRoot, 'test', 'helpers', 'otf2_omp_check.py');
const source = 'omp_trace.c';

function missing(): string | null {
  if (!haveTool('clang') || !haveTool('gcc')) return 'clang and gcc are needed';
  return traceRunMissing();
}
const why = missing();
if (why) console.log(`OpenMP trace tests skipped: ${why}`);
const traceTest = why ? test.skip : test.serial;

interface OmpArchive {
  teams: Array<{ name: string; members: string[] }>;
  forks: number;
  joins: number;
  team_begins: number;
  team_ends: number;
  created: number;
  completed: number;
  switches: number;
  resumed: number;
  migrated: number;
  tasks_running_at_end: number;
  acquires: number;
  releases: number;
  locks: number;
  locations_with_tasks: number;
  lock_release_lag_ns: number;
  bad: string[];
}

// The program's arguments: parents per part, the suspending part's child length, lock rounds per thread.
const PARENTS = 4;
const CHILD_MS = 20;
const ROUNDS = 20;
const THREADS = 4; // the second part's team (num_threads(4))

async function traced(t: ExecutionContext, exe: string, tag: string, level: string) {
  const out = tmpDir(`trace-omp-${tag}`);
  const r = await hyprof(['run', '--dir', out, '--', exe, String(PARENTS), String(CHILD_MS), String(ROUNDS)], {
    env: { HYPROF_TRACE: '1', HYPROF_OPENMP: level, HYPROF_SAMPLING: '0' },
    timeoutMs: 120_000,
  });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, new RegExp(`locked ${THREADS * ROUNDS} critical ${THREADS * ROUNDS} ordered 8`));
  t.notRegex(r.stderr, /hyprof-otf2|left out|moved up/, 'the writer had nothing to leave out or move');
  const anchor = join(out, 'traces.otf2');
  const printed = spawnSync('otf2-print', [anchor], { encoding: 'utf8', maxBuffer: 64 << 20 });
  t.is(printed.status, 0, printed.stderr);
  const c = spawnSync(PYTHON, [checker, anchor], { encoding: 'utf8', maxBuffer: 64 << 20 });
  t.is(c.status, 0, c.stderr);
  return { out, printed: printed.stdout, a: JSON.parse(c.stdout) as OmpArchive, stdout: r.stdout };
}

/** What every traced run at level full shows, whichever compiler built the program. */
function checkFull(t: ExecutionContext, a: OmpArchive, printed: string) {
  t.deepEqual(a.bad, []);
  // two parallel regions, both encountered by thread 0: a team of one, then a team of THREADS
  t.is(a.forks, 2);
  t.is(a.joins, 2);
  t.is(a.team_begins, 1 + THREADS);
  t.is(a.team_ends, 1 + THREADS);
  t.deepEqual(a.teams.map((x) => x.members.length).sort(), [1, THREADS]);
  // in the order of their numbers in the team: the encountering thread is number 0 (the others'
  // numbers need not follow hyprof's thread numbering, which is by first appearance)
  const team = a.teams.find((x) => x.members.length === THREADS)!.members;
  t.is(team[0], 'thread 0');
  t.deepEqual([...team].sort(), ['thread 0', 'thread 1', 'thread 2', 'thread 3']);
  // each part: PARENTS parents, each with one child
  t.is(a.created, 4 * PARENTS);
  t.is(a.completed, 4 * PARENTS);
  t.is(a.tasks_running_at_end, 0);
  // every parent is suspended at its taskwait (its child runs on its thread meanwhile) and resumed
  t.true(a.resumed >= PARENTS, `${a.resumed} tasks resumed`);
  // the lock and the named critical section: THREADS x ROUNDS each; the ordered loop's 8 iterations
  t.is(a.acquires, 2 * THREADS * ROUNDS + 8);
  t.is(a.releases, a.acquires);
  t.is(a.locks, 3);
  if (a.lock_release_lag_ns > 0) t.log(`a release was stamped up to ${a.lock_release_lag_ns} ns after the next acquisition (its callback's latency)`);
  for (const kind of ['THREAD_FORK', 'THREAD_JOIN', 'THREAD_TEAM_BEGIN', 'THREAD_TEAM_END', 'THREAD_TASK_CREATE', 'THREAD_TASK_SWITCH',
    'THREAD_TASK_COMPLETE', 'THREAD_ACQUIRE_LOCK', 'THREAD_RELEASE_LOCK']) {
    t.regex(printed, new RegExp(`^${kind} `, 'm'), `otf2-print shows ${kind}`);
  }
}

/** The line of the n-th `#pragma omp task` of the program (the task constructs are named after it). */
function taskLine(n: number): number {
  const lines = readFileSync(join(repoRoot, 'test', 'native', source), 'utf8').split('\n');
  const at = lines.map((l, i) => (/^#pragma omp task(\s|$)/.test(l.trim()) ? i + 1 : 0)).filter((i) => i > 0);
  return at[n];
}

traceTest('clang (libomp), level full: forks joined, teams paired, every task created and completed once, switches consistent, each lock acquisition released once by its holder; report --trace gives the known suspension', async (t) => {
  const exe = buildOmp('omp_trace', source, 'clang');
  const { out, printed, a, stdout } = await traced(t, exe, 'clang', 'full');
  checkFull(t, a, printed);

  const rep = await hyprof(['report', out, '--trace', '--json']);
  t.is(rep.code, 0, rep.stderr);
  const report = JSON.parse(rep.stdout) as TraceReport;
  const at = (line: number) => report.taskSuspensions.find((s) => s.construct.includes(`{${line}, 0}]`));
  const parent = at(taskLine(0)), child = at(taskLine(1));
  t.truthy(parent, `the suspending parents' construct (line ${taskLine(0)}) in ${report.taskSuspensions.map((s) => s.construct)}`);
  t.truthy(child);
  // Each parent is suspended once, while its child spins CHILD_MS of wall-clock time on top of it.
  t.is(parent!.tasks, PARENTS);
  t.is(parent!.suspended, PARENTS);
  t.is(parent!.suspensions, PARENTS);
  // The program measured its children's time itself (a loaded machine stretches their CHILD_MS).
  const ms = parent!.time / 1e6;
  const children = Number(/children ms ([\d.]+)/.exec(stdout)![1]);
  t.true(children >= PARENTS * CHILD_MS);
  t.true(ms >= children * 0.98 && ms <= children * 1.05 + 1, `suspended ${ms} ms; the children ran ${children} ms`);
  t.true(Math.abs(parent!.time - child!.executing) <= 0.05 * child!.executing, 'a parent is suspended exactly while its child runs');
  t.is(child!.suspensions, 0);
});

traceTest('gcc (libgomp replaced by libomp), level full: the same events, consistent', async (t) => {
  const exe = buildOmp('omp_trace', source, 'gcc');
  const { printed, a } = await traced(t, exe, 'gcc', 'full');
  checkFull(t, a, printed);
});

traceTest('level basic: fork / join and teams, no task or lock event', async (t) => {
  const exe = buildOmp('omp_trace', source, 'clang');
  const { a } = await traced(t, exe, 'basic', 'basic');
  t.deepEqual(a.bad, []);
  t.is(a.forks, 2);
  t.is(a.joins, 2);
  t.is(a.team_begins, 1 + THREADS);
  t.is(a.created + a.switches + a.completed + a.acquires + a.releases, 0);
});
