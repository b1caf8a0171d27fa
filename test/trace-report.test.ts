/**
 * `hyprof report --trace` on an archive the OTF2 library wrote with known waits
 * (test/native/otf2_gen.c): each wait state is found at its call site and rank with its known size.
 */
import test from 'ava';
import { hyprof } from './helpers/native.js';
import { otf2Missing, RUN, writeArchive } from './helpers/otf2.js';
import type { TraceReport } from '../src/report/report-trace.js';

const missing = otf2Missing();
if (missing) console.log(`trace tests skipped: ${missing}`);
const maybe = missing ? test.skip : test;

const within = (got: number, want: number, share = 0.1): boolean => Math.abs(got - want) <= want * share;

maybe('report --trace finds the late sender (known delay, within 10 %), late receiver, waits at N×N and late broadcasts per call site and rank', async (t) => {
  const dir = writeArchive('run');
  const r = await hyprof(['report', dir, '--trace', '--json']);
  t.is(r.code, 0, r.stderr);
  const rep = JSON.parse(r.stdout) as TraceReport;
  const row = (kind: string, rank: number) => rep.waitStates.filter((w) => w.kind === kind && w.rank === rank);
  // Rank 0 sends to rank 1 late once, by RUN.lateSender: rank 1 waits in MPI_Recv, called from an iteration.
  const ls = row('late sender', 1);
  t.is(ls.length, 1);
  t.true(within(ls[0].time, RUN.lateSender), `late sender ${ls[0].time} ns, expected ${RUN.lateSender}`);
  t.is(ls[0].count, 1);
  t.is(ls[0].call, 'MPI_Recv()');
  t.is(ls[0].caller, 'Iteration <n>');
  t.is(rep.waitStates.filter((w) => w.kind === 'late sender').length, 1, 'no other rank waits for a sender');
  // Rank 2's blocking send waits for rank 3's receive, every iteration.
  const lr = row('late receiver', 2);
  t.is(lr.length, 1);
  t.is(lr[0].count, 3);
  t.true(within(lr[0].time, 3 * RUN.lateReceiver));
  // Allreduce: rank r enters r steps after rank 0, so rank r waits (3 - r) steps; rank 3 does not wait.
  for (const rank of [0, 1, 2]) {
    const w = row('wait at N×N', rank);
    t.is(w.length, 1, `rank ${rank}`);
    t.true(within(w[0].time, 3 * (3 - rank) * RUN.allreduceStep), `rank ${rank}: ${w[0].time}`);
  }
  t.is(row('wait at N×N', 3).length, 0);
  // Bcast: the root (0) is late; every other rank waits for it.
  for (const rank of [1, 2, 3]) t.true(within(row('late broadcast', rank)[0]?.time ?? 0, 3 * RUN.bcastLate), `rank ${rank}`);
  t.is(row('late broadcast', 0).length, 0);
  t.is(rep.messages, 9);
});

maybe('report --trace gives task suspensions per construct, task problems in time, and the slowest phase instance against the median', async (t) => {
  const dir = writeArchive('run');
  const r = await hyprof(['report', dir, '--trace', '--json']);
  t.is(r.code, 0, r.stderr);
  const rep = JSON.parse(r.stdout) as TraceReport;
  t.is(rep.taskSuspensions.length, 1);
  const s = rep.taskSuspensions[0];
  t.is(s.construct, 'OpenMP_Task work [{app.c} {74, 0}]');
  t.is(s.tasks, 4);
  t.is(s.suspended, 1);
  t.is(s.migrated, 1);
  t.true(within(s.time, RUN.suspension));
  // Tasks start at 62.1 ms and later: every problem found lies in the parallel region (62..64 ms).
  t.true(rep.taskProblems.length > 0);
  for (const p of rep.taskProblems) {
    t.true(p.from >= 62e6 && p.to <= 64e6, JSON.stringify(p));
    t.regex(p.where, /^rank 0 thread 0: OpenMP_Parallel_Region main/);
  }
  const phase = rep.phases.find((p) => p.phase === 'Iteration <n>');
  t.truthy(phase);
  t.is(phase!.instances, 12);
  t.is(phase!.slowest.name, 'Iteration 2');
  t.true(within(phase!.slowest.duration - phase!.median, RUN.slowPhaseExtra));
  t.is(phase!.differences[0].region, 'solve', 'solve is what the slowest iteration spent most extra time in');
  const text = await hyprof(['report', dir, '--trace']);
  t.is(text.code, 0);
  t.regex(text.stdout, /late sender\s+MPI_Recv\(\) in Iteration <n>/);
  t.regex(text.stdout, /OPENMP TASK SUSPENSIONS/);
});

maybe('report --trace on a profile directory without a trace says so, exit 2', async (t) => {
  const dir = writeArchive('run');
  const r = await hyprof(['report', `${dir}/nothing-here`, '--trace']);
  t.is(r.code, 2);
  t.regex(r.stderr, /^hyprof: --trace: .*nothing-here has no trace \(.*traces\.otf2 is missing; record one with HYPROF_TRACE=1\)\n$/);
});
