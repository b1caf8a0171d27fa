/**
 * The cross-rank views of `hyprof report` on real MPI runs: the statistics over threads checked
 * against the values of every thread's file, the MPI accounting checked against each rank's own
 * numbers, MPI load imbalance named with the collective's line and the work that differs, MPI and
 * OpenMP measured together, a lost rank said by the report when each rank resolved on its own.
 */
import test from 'ava';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, compileC, hyprof, run, tmpDir } from './helpers/native.js';
import { compileMpiC, mpiMissing, mpirunArgs } from './helpers/mpi.js';
import { readWithTau } from './helpers/tau-reader.js';
import { assertConformant } from './helpers/conformance.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { callSitesOf } from '../src/analysis/mpi-sites.js';
import type { MpiAccounting, MpiDiagnosis, RanksReport } from '../src/report/mpi-report.js';

const missing = mpiMissing();
let exchangeDir = '';

test.before(async () => {
  if (missing) return;
  const app = compileMpiC('mpi_app', 'mpi_app.c');
  exchangeDir = tmpDir('mpi-report-exchange');
  const r = await hyprof(['run', '--dir', exchangeDir, '--', 'mpirun', ...mpirunArgs(3), app, 'exchange']);
  if (r.code !== 0) throw new Error(r.stderr);
});

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

test.serial('report: per event, mean / std. dev. / min / max over all threads and where the max is, as computed from each file', async (t) => {
  if (missing) return t.fail(missing);
  const r = await hyprof(['report', exchangeDir, '--json', '--limit', '1000']);
  t.is(r.code, 0, r.stderr);
  const ranks = (JSON.parse(r.stdout) as { ranks: RanksReport }).ranks;
  const threads = readTauProfileDir(exchangeDir).threads[0];
  t.is(ranks.ranks, 3);
  t.is(ranks.threads, threads.length);
  for (const name of ['MPI_Allreduce()', 'MPI_Send()', '.TAU application', 'MPI_Init()']) {
    const values = threads.map((th) => th.events.find((e) => e.name === name)?.excl ?? 0);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const std = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
    const max = Math.max(...values);
    const at = threads[values.indexOf(max)];
    const row = ranks.stats.find((s) => s.name === name);
    t.truthy(row, name);
    t.true(close(row!.mean, mean), `${name}: mean ${row!.mean} vs ${mean}`);
    t.true(close(row!.std, std), `${name}: std ${row!.std} vs ${std}`);
    t.is(row!.min, Math.min(...values));
    t.is(row!.max, max);
    t.is(row!.maxAt, `${at.node},${at.context},${at.thread}`);
    t.is(row!.threads, values.filter((_, i) => threads[i].events.some((e) => e.name === name)).length);
  }
  // The slowest rank is the one whose root timer is largest.
  const totals = [0, 1, 2].map((n) => Math.max(...threads.filter((th) => th.node === n).map((th) => th.events.find((e) => e.name === '.TAU application')!.incl)));
  t.is(ranks.slowest?.node, totals.indexOf(Math.max(...totals)));
  const text = await hyprof(['report', exchangeDir]);
  t.regex(text.stdout, /RANKS: 3 ranks of 3, \d+ threads/);
  t.regex(text.stdout, /STATISTICS OVER ALL \d+ THREADS/);
  t.regex(text.stdout, /Slowest rank: \d/);
});

test.serial('report --mpi: each rank\'s MPI time and bytes as its own files say; call sites', async (t) => {
  if (missing) return t.fail(missing);
  const r = await hyprof(['report', exchangeDir, '--mpi', '--json']);
  t.is(r.code, 0, r.stderr);
  const mpi = (JSON.parse(r.stdout) as { mpi: MpiAccounting }).mpi;
  const threads = readTauProfileDir(exchangeDir).threads[0];
  t.deepEqual(mpi.ranks.map((x) => x.node), [0, 1, 2]);
  for (const row of mpi.ranks) {
    const mine = threads.filter((th) => th.node === row.node);
    const mpiExcl = mine.flatMap((th) => th.events.filter((e) => e.group === 'MPI')).reduce((a, e) => a + e.excl, 0);
    t.true(close(row.mpi, mpiExcl), `rank ${row.node}: MPI time`);
    t.is(row.sent, 9056);
    t.is(row.received, 9056);
    t.is(row.collective, 160 + 256 + 32 + 8);
  }
  const allreduce = mpi.byCall.find((c) => c.call === 'MPI_Allreduce()');
  t.is(allreduce?.calls, 60, '20 per rank');
  t.is(allreduce?.ranks, 3);
  t.true(mpi.sites.some((s) => s.call === 'MPI_Allreduce()' && /mpi_app\.c:\d+ \(exchange\)/.test(s.location) && s.calls === 60));
  // Three MPI_Barrier calls written on one line: one call site of 3 ranks and 9 calls, however
  // many return addresses the line has.
  const barrier = mpi.sites.filter((s) => s.call === 'MPI_Barrier()');
  t.is(barrier.length, 1, JSON.stringify(barrier));
  t.is(barrier[0]?.ranks, 3);
  t.is(barrier[0]?.calls, 9);
  for (const s of mpi.sites) t.true(s.ranks <= 3, `${s.call} at ${s.location}: ${s.ranks} ranks of 3`);
  // Each thread's metadata names a call site once.
  for (const th of threads) {
    const keys = callSitesOf(th.metadata).map((s) => `${s.call}|${s.caller}|${s.location}`);
    t.is(new Set(keys).size, keys.length, `${th.node},${th.context},${th.thread}: ${keys.join(', ')}`);
  }
  const text = await hyprof(['report', exchangeDir, '--mpi']);
  t.regex(text.stdout, /MPI per rank/);
  t.regex(text.stdout, /MPI as an overhead class/);
  t.regex(text.stdout, /Call sites/);
});

test.serial('report --diagnose: load imbalance between ranks at MPI_Allreduce, with its line and the work that differs', async (t) => {
  if (missing) return t.fail(missing);
  const app = compileMpiC('mpi_app', 'mpi_app.c');
  const dir = tmpDir('mpi-report-imbalance');
  // Rank 1 computes twice what rank 0 does before each of 8 MPI_Allreduce calls: rank 0 waits.
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(2), app, 'imbalance', '40']);
  t.is(r.code, 0, r.stderr);
  const j = await hyprof(['report', dir, '--diagnose', '--json']);
  t.is(j.code, 0, j.stderr);
  const ds = (JSON.parse(j.stdout) as { mpi: MpiDiagnosis[] }).mpi;
  const d = ds.find((x) => x.call === 'MPI_Allreduce()');
  t.truthy(d, j.stdout);
  t.regex(d!.location, /mpi_app\.c:\d+ \(imbalance\)/, 'the collective\'s own line');
  t.regex(d!.message, /Rank 1 spends least: it arrives last/);
  t.regex(d!.work?.name ?? '', /^work at mpi_app\.c:\d+$/, 'the work that differs, by sampled line');
  t.true(d!.work!.late > d!.work!.early);
  const text = await hyprof(['report', dir, '--diagnose']);
  t.regex(text.stdout, /Load imbalance between MPI ranks at .*mpi_app\.c:\d+ \(imbalance\)/);
  // Samples taken while rank 0 waits belong to the MPI call's context.
  const rank0 = readTauProfileDir(dir).threads[0].find((x) => x.node === 0 && x.thread === 0)!;
  t.true((rank0.events.find((e) => e.name === '[CONTEXT] MPI_Allreduce()')?.calls ?? 0) > 0, 'samples under [CONTEXT] MPI_Allreduce()');
});

test.serial('MPI and OpenMP together: both layers, MPI under the parallel region, MPI per region in --mpi', async (t) => {
  if (missing) return t.fail(missing);
  const exe = compileMpiC('mpi_omp', 'mpi_omp.c', false, { env: { OMPI_CC: 'clang' }, cflags: ['-fopenmp'] });
  const dir = tmpDir('mpi-report-omp');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(2), exe]);
  t.is(r.code, 0, r.stderr);
  const threads = readTauProfileDir(dir).threads[0];
  for (const node of [0, 1]) {
    const main = threads.find((th) => th.node === node && th.thread === 0)!;
    t.is(main.events.find((e) => e.name === 'MPI_Allreduce()')?.calls, 4);
    t.is(main.events.find((e) => e.name === 'MPI_Init_thread()')?.calls, 1);
    t.true(main.events.some((e) => /^OpenMP_Parallel_Region main \[\{.*mpi_omp\.c\} \{\d+, 0\}\]$/.test(e.name) && e.calls === 4));
    t.true(
      main.events.some((e) => /OpenMP_Parallel_Region main .* => .*MPI_Allreduce\(\)$/.test(e.name)),
      'the MPI call is under the parallel region',
    );
    t.true(threads.filter((th) => th.node === node).length >= 2, 'the OpenMP worker thread is measured');
  }
  const mpi = await hyprof(['report', dir, '--mpi', '--json']);
  const acc = (JSON.parse(mpi.stdout) as { mpi: MpiAccounting }).mpi;
  const region = acc.regions.find((g) => g.region.startsWith('OpenMP_Parallel_Region main'));
  t.truthy(region, mpi.stdout);
  t.true(region!.mpi > 0 && region!.exec > region!.mpi);
  t.true(readWithTau(dir).ok);
  const omp = await hyprof(['report', dir, '--openmp', '--json']);
  t.is((JSON.parse(omp.stdout) as { processes: unknown[] }).processes.length, 2, 'the OpenMP analysis of both ranks');

  // Each rank resolving on its own keeps its own OpenMP analysis; the report reads them all.
  const own = tmpDir('mpi-report-omp-ranks');
  const r2 = await run('mpirun', [...mpirunArgs(2), process.execPath, cliPath, 'run', '--dir', own, '--', exe]);
  t.is(r2.code, 0, r2.stderr);
  t.deepEqual(readdirSync(own).filter((f) => f.startsWith('openmp')).sort(), ['openmp.rank0.json', 'openmp.rank1.json']);
  const omp2 = await hyprof(['report', own, '--openmp', '--json']);
  t.is((JSON.parse(omp2.stdout) as { processes: unknown[] }).processes.length, 2);
  assertConformant(own);
});

test.serial('MPI_THREAD_MULTIPLE: MPI calls of every thread in the call sites, each rank counted once', async (t) => {
  if (missing) return t.fail(missing);
  const exe = compileMpiC('mpi_omp_multiple', 'mpi_omp_multiple.c', false, { env: { OMPI_CC: 'clang' }, cflags: ['-fopenmp'] });
  const dir = tmpDir('mpi-report-multiple');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(2), exe]);
  t.is(r.code, 0, r.stderr);
  const threads = readTauProfileDir(dir).threads[0];
  for (const node of [0, 1]) {
    const callers = threads.filter((th) => th.node === node && (th.events.find((e) => e.name === 'MPI_Allreduce()')?.calls ?? 0) === 3);
    t.is(callers.length, 2, `rank ${node}: two threads made 3 MPI_Allreduce calls each`);
  }
  const j = await hyprof(['report', dir, '--mpi', '--json']);
  t.is(j.code, 0, j.stderr);
  const mpi = (JSON.parse(j.stdout) as { mpi: MpiAccounting }).mpi;
  const sites = mpi.sites.filter((s) => s.call === 'MPI_Allreduce()');
  t.is(sites.length, 1, JSON.stringify(sites));
  t.regex(sites[0].location, /mpi_omp_multiple\.c:\d+/);
  t.is(sites[0].calls, 12, '2 ranks x 2 threads x 3 calls');
  t.is(sites[0].ranks, 2);
  t.is(mpi.byCall.find((c) => c.call === 'MPI_Allreduce()')?.calls, 12);
});

test.serial('each rank resolving on its own: the report says which rank of the run is missing', async (t) => {
  if (missing) return t.fail(missing);
  const app = compileMpiC('mpi_app', 'mpi_app.c');
  const dir = tmpDir('mpi-report-lost');
  const r = await run('mpirun', [...mpirunArgs(3), process.execPath, cliPath, 'run', '--dir', dir, '--', app, 'crash', '2']);
  t.not(r.code, 0);
  t.regex(r.stderr, /program killed by SIGSEGV: it could not write its measurements; no profile/);
  // The launcher stops the other ranks before they resolve: their raw files wait in the output directory.
  const raw = join(dir, '.hyprof-raw');
  t.regex(r.stderr, /hyprof: rank [01]: the launcher stopped the job \(SIGTERM\); this rank's raw measurements are kept in /);
  const early = await hyprof(['report', dir]);
  t.is(early.code, 2);
  t.true(early.stderr.includes(`not resolved (the launcher stopped those ranks first): hyprof resolve ${raw} -o ${dir}`), early.stderr);
  const res = await hyprof(['resolve', raw, '-o', dir]);
  t.is(res.code, 0, res.stderr);
  t.regex(res.stderr, /hyprof: warning: rank 2 of 3 wrote no measurements/);
  t.false(existsSync(raw), 'the raw directory is removed once resolved');
  const rep = await hyprof(['report', dir, '--thread', 'mean']);
  t.is(rep.code, 0, rep.stderr);
  t.regex(rep.stdout, /WARNING: rank 2 of 3 wrote no measurements/);
  t.regex(rep.stdout, /RANKS: 2 ranks of 3/);
});

test.serial('report --mpi on a profile without MPI events: a clear message, non-zero status', async (t) => {
  const dir = tmpDir('mpi-report-none');
  writeFileSync(join(dir, 'p.c'), '#include <stdio.h>\nint main(void) { puts("x"); return 0; }\n');
  const exe = compileC('p', [join(dir, 'p.c')], { link: false });
  const out = tmpDir('mpi-report-none-prof');
  t.is((await hyprof(['run', '--dir', out, '--', exe])).code, 0);
  const r = await hyprof(['report', out, '--mpi']);
  t.is(r.code, 2);
  t.regex(r.stderr, /^hyprof: .*: no MPI events in this profile\. They are recorded by hyprof's MPI layer/);
});
