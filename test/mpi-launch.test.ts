/**
 * The launch forms of an MPI job give the same profile (docs/mpi.md, "Launch forms"): a gcc-built
 * MPI + OpenMP program (GNU libgomp, which hyprof replaces by LLVM's libomp in every form) on 4
 * oversubscribed ranks, run
 *   A. `hyprof run -- mpirun ... ./app` (one hyprof, one resolve),
 *   B. `mpirun ... hyprof run -- ./app` (one hyprof per rank, each resolving its rank),
 *   C. `mpirun ... hyprof-exec ./app`, then `hyprof resolve DIR/.hyprof-raw -o DIR` (the shell launcher),
 *   D. `hyprof run -- mpirun ... hyprof-exec ./app` (the launcher inside one hyprof run),
 * must leave every rank, the same MPI and OpenMP events per rank, the substitution in each rank's
 * metadata, no advice to run under `hyprof run`, and directories TAU's reader accepts. And the
 * launcher's environment is the one `hyprof run` gives (one list, src/run/measured-env.ts).
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { cliPath, hyprof, libPath, repoRoot, run, tmpDir } from './helpers/native.js';
import { compileMpiC, mpiMissing, mpirunArgs } from './helpers/mpi.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { childEnv } from '../src/run/run-measured.js';
import { findLibomp } from '../src/analysis/openmp-runtime.js';
import { mpiRuntime } from '../src/base/package-root.js';

const missing = mpiMissing() ?? (findLibomp() ? null : 'LLVM libomp is not installed (scripts/install-deps.sh: libomp-dev)');
const execPath = join(repoRoot, 'bin', 'hyprof-exec');
const RANKS = 4;

/** Per rank, the MPI and OpenMP events (flat and paths, without samples), sorted. */
function eventsPerRank(dir: string): Map<number, string[]> {
  const out = new Map<number, Set<string>>();
  for (const th of readTauProfileDir(dir).threads[0]) {
    const set = out.get(th.node) ?? new Set<string>();
    for (const e of th.events) {
      if (/\[(SAMPLE|CONTEXT|SUMMARY|UNWIND|INTERMEDIATE)\]/.test(e.name)) continue;
      // The event's own part: a path's last element.
      if (/(^|=> )(MPI_\w+\(\)|OpenMP_\w+)/.test(e.name.split(' => ').pop() ?? '')) set.add(e.name.replace(/ \[\{.*$/, ''));
    }
    out.set(th.node, set);
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]));
}

/** The ranks whose metadata says libgomp was replaced. */
function substitutedRanks(dir: string): number[] {
  const ranks = new Set<number>();
  for (const th of readTauProfileDir(dir).threads[0]) {
    if (JSON.stringify(th.metadata).includes('OpenMP Runtime Substituted')) ranks.add(th.node);
  }
  return [...ranks].sort();
}

test.serial('every launch form: all ranks, the same MPI and OpenMP events per rank, libomp in libgomp\'s place', async (t) => {
  if (missing) return t.fail(missing);
  // mpicc's default compiler (gcc): the program loads GNU libgomp.
  const exe = compileMpiC('mpi_omp_gcc', 'mpi_omp.c', false, { cflags: ['-fopenmp'] });
  const dirs = { A: tmpDir('launch-a'), B: tmpDir('launch-b'), C: tmpDir('launch-c'), D: tmpDir('launch-d') };
  const stderr: Record<string, string> = {};

  const a = await hyprof(['run', '--dir', dirs.A, '--', 'mpirun', ...mpirunArgs(RANKS), exe]);
  t.is(a.code, 0, a.stderr);
  stderr.A = a.stderr;
  const b = await run('mpirun', [...mpirunArgs(RANKS), process.execPath, cliPath, 'run', '--dir', dirs.B, '--', exe]);
  t.is(b.code, 0, b.stderr);
  stderr.B = b.stderr;
  const c = await run('mpirun', [...mpirunArgs(RANKS), execPath, '--dir', dirs.C, exe]);
  t.is(c.code, 0, c.stderr);
  t.true(existsSync(join(dirs.C, '.hyprof-raw', hostname())), "the ranks wrote raw files into their node's subdirectory, not a profile");
  const cr = await hyprof(['resolve', join(dirs.C, '.hyprof-raw'), '-o', dirs.C]);
  t.is(cr.code, 0, cr.stderr);
  stderr.C = c.stderr + cr.stderr;
  const d = await hyprof(['run', '--dir', dirs.D, '--', 'mpirun', ...mpirunArgs(RANKS), execPath, exe]);
  t.is(d.code, 0, d.stderr);
  stderr.D = d.stderr;

  const reference = eventsPerRank(dirs.B);
  t.deepEqual([...reference.keys()].sort(), [0, 1, 2, 3], 'every rank in form B');
  const r0 = reference.get(0)!;
  t.true(r0.includes('MPI_Allreduce()') && r0.includes('MPI_Init_thread()'), r0.join('\n'));
  t.true(r0.some((e) => e.startsWith('OpenMP_Parallel_Region')), 'OpenMP events: libomp ran in libgomp\'s place');
  for (const [form, dir] of Object.entries(dirs)) {
    const events = eventsPerRank(dir);
    t.deepEqual([...events.keys()].sort(), [0, 1, 2, 3], `form ${form}: every rank`);
    for (const [rank, names] of reference) t.deepEqual(events.get(rank), names, `form ${form}, rank ${rank}: the events of form B`);
    t.deepEqual(substitutedRanks(dir), [0, 1, 2, 3], `form ${form}: the substitution is in every rank's metadata`);
    // Only the ranks' programs: no launcher process (the shell of hyprof-exec under form D) measured.
    const contexts = new Set(readTauProfileDir(dir).threads[0].map((th) => th.context));
    t.deepEqual([...contexts], [0], `form ${form}: context 0 only`);
    t.notRegex(stderr[form], /run it under `hyprof run`/, `form ${form}`);
    if (form !== 'B') t.is(stderr[form].split('GNU libgomp replaced by LLVM libomp').length - 1, 1, `form ${form}: the substitution said once for the job\n${stderr[form]}`);
    t.notRegex(stderr[form], /GNU libgomp, which has no OpenMP tools interface/, `form ${form}`);
    const tau = readWithTau(dir);
    t.true(tau.ok, `form ${form}: ${tauReaderComplaints(tau)}`);
  }
  t.false(existsSync(join(dirs.C, '.hyprof-raw')), 'the raw directory is removed once resolved');
});

test.serial('hyprof-exec gives the environment hyprof run gives, from the same list', async (t) => {
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', LD_PRELOAD: '/lib/user.so', HYPROF_DIR: 'prof', TAU_SAMPLING: '0' };
  // The launcher, stopped at its exec: `env` prints what the program would get.
  const r = spawnSync(execPath, ['env'], { encoding: 'utf8', env: base, cwd: tmpDir('launch-env') });
  t.is(r.status, 0, r.stderr);
  const got = Object.fromEntries(r.stdout.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  const libs = mpiRuntime() ? [libPath, mpiRuntime()!] : [libPath];
  // The raw files go to the node's subdirectory: the host's name (docs/mpi.md, "Resolve per node").
  const want = childEnv(base, libs, `prof/.hyprof-raw/${hostname()}`, { sampling: true });
  for (const name of ['LD_PRELOAD', 'HYPROF_RAW_DIR', 'HYPROF_RESOLVE', 'HYPROF_SAMPLING', 'CUDA_INJECTION64_PATH', 'TAU_SAMPLING']) {
    t.is(got[name] as string | undefined, want[name], name);
  }
  t.is((got.LD_PRELOAD ?? '').split(':')[0], '/lib/user.so', "the user's preload stays first");
  t.regex(got.LD_LIBRARY_PATH ?? '', /openmp-runtime/);
  t.regex(got.HYPROF_OPENMP_SUBSTITUTED ?? '', /GNU libgomp replaced by LLVM libomp/);
  const named = spawnSync(execPath, ['env'], { encoding: 'utf8', env: { ...base, HYPROF_RAW_NODE: 'node7' }, cwd: tmpDir('launch-env-node') });
  t.regex(named.stdout, /^HYPROF_RAW_DIR=prof\/\.hyprof-raw\/node7$/m, 'HYPROF_RAW_NODE names the node');
  // HYPROF_OPENMP=off: no substitution, as with hyprof run.
  const off = spawnSync(execPath, ['env'], { encoding: 'utf8', env: { ...base, HYPROF_OPENMP: 'off' }, cwd: tmpDir('launch-env-off') });
  t.notRegex(off.stdout, /HYPROF_OPENMP_SUBSTITUTED|openmp-runtime/);
  // The fragment the launcher sources is `hyprof config --exec-env`, written again when stale.
  const cfg = await hyprof(['config', '--exec-env']);
  t.is(cfg.code, 0, cfg.stderr);
  const envfile = join(libPath, '..', 'hyprof-exec.env');
  t.is(readFileSync(envfile, 'utf8'), cfg.stdout);
  writeFileSync(envfile, '# stale\n');
  spawnSync('touch', ['-d', '2000-01-01', envfile]);
  const again = spawnSync(execPath, ['true'], { encoding: 'utf8', env: base, cwd: tmpDir('launch-env-again') });
  t.is(again.status, 0, again.stderr);
  t.is(readFileSync(envfile, 'utf8'), cfg.stdout, 'a stale fragment is written again');
});

test.serial('hyprof-exec: bad input is one clear line and a non-zero status', (t) => {
  const none = spawnSync(execPath, ['./no-such-program'], { encoding: 'utf8' });
  t.is(none.status, 127);
  t.is(none.stderr, "hyprof: hyprof-exec: cannot run './no-such-program': no such file or command\n");
  const opt = spawnSync(execPath, ['--bogus', 'true'], { encoding: 'utf8' });
  t.is(opt.status, 2);
  t.regex(opt.stderr, /^hyprof: hyprof-exec: unknown option '--bogus'\nusage: hyprof-exec/);
  const node = spawnSync(execPath, ['true'], { encoding: 'utf8', env: { ...process.env, HYPROF_RAW_NODE: 'a/b' } });
  t.is(node.status, 2);
  t.is(node.stderr, "hyprof: hyprof-exec: HYPROF_RAW_NODE='a/b' is not a node name (a directory name: not empty, no '/', not . or ..)\n");
  const empty = spawnSync(execPath, [], { encoding: 'utf8' });
  t.is(empty.status, 2);
  t.regex(empty.stderr, /^usage: hyprof-exec/);
});
