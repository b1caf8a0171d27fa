/**
 * MPI programs measured the three ways a user runs them, with real Open MPI: every rank's files in
 * one directory with its rank as the node, nothing for the launcher, no rank deleting another's
 * files, MPI calls as TAU names them with exact call counts and byte totals, TAU's reader accepting
 * the result; and the ways a run goes wrong (a rank that crashes or aborts, settings that differ
 * between ranks, mpirun missing).
 */
import test from 'ava';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, compileC, hyprof, run, tmpDir } from './helpers/native.js';
import { calls, compileMpiC, mpiMissing, mpirunArgs, rankMain, userEvent } from './helpers/mpi.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { assertConformant } from './helpers/conformance.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauProfile } from '../src/profile/tau-model.js';

const missing = mpiMissing();
let app = '';
let linked = '';
test.before(() => {
  if (missing) return;
  app = compileMpiC('mpi_app', 'mpi_app.c');
  linked = compileMpiC('mpi_app_linked', 'mpi_app.c', true);
});

function profileFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => /^profile\.\d+\.\d+\.\d+$/.test(f)).sort() : [];
}

/** Every rank 0..n-1 has profile.<rank>.0.0 and no other context exists (nothing of the launcher). */
function assertRanks(t: import('ava').ExecutionContext, dir: string, n: number): TauProfile {
  const files = profileFiles(dir);
  const nodes = [...new Set(files.map((f) => Number(f.split('.')[1])))].sort((a, b) => a - b);
  t.deepEqual(nodes, [...Array(n).keys()], `one node per rank: ${files.join(' ')}`);
  t.deepEqual(
    files.filter((f) => f.split('.')[2] !== '0'),
    [],
    'every file is context 0: the launcher (mpirun) and no other process wrote anything',
  );
  const profile = readTauProfileDir(dir);
  for (let r = 0; r < n; r++) {
    const main = rankMain(profile, r);
    t.truthy(main, `profile.${r}.0.0`);
    t.is(main?.metadata.find(([k]) => k === 'MPI Rank')?.[1], String(r), `rank ${r}: its metadata says so`);
    t.is(main?.metadata.find(([k]) => k === 'MPI World Size')?.[1], String(n));
  }
  const tau = readWithTau(dir);
  t.true(tau.ok, tauReaderComplaints(tau));
  return profile;
}

/** The exact traffic of mpi_app exchange (see test/native/mpi_app.c) on every rank. */
function assertExchange(t: import('ava').ExecutionContext, profile: TauProfile, n: number): void {
  for (let r = 0; r < n; r++) {
    const m = rankMain(profile, r);
    const want: Record<string, number> = {
      'MPI_Init()': 1,
      'MPI_Finalize()': 1,
      'MPI_Send()': 11,
      'MPI_Recv()': 10,
      'MPI_Isend()': 5,
      'MPI_Irecv()': 6,
      'MPI_Waitall()': 5,
      'MPI_Sendrecv()': 3,
      'MPI_Allreduce()': 20,
      'MPI_Bcast()': 4,
      'MPI_Reduce()': 2,
      'MPI_Gather()': 1,
      'MPI_Barrier()': 3,
    };
    for (const [name, count] of Object.entries(want)) t.is(calls(m, name), count, `rank ${r}: ${name}`);
    t.true(calls(m, 'MPI_Test()') >= 1, `rank ${r}: MPI_Test() until the receive completed`);
    t.is(m?.events.find((e) => e.name === 'MPI_Allreduce()')?.group, 'MPI');
    t.deepEqual(userEvent(m, 'Message size sent to all nodes'), { count: 19, sum: 9056 }, `rank ${r}: sent`);
    t.deepEqual(userEvent(m, 'Message size received from all nodes'), { count: 19, sum: 9056 }, `rank ${r}: received`);
    t.deepEqual(userEvent(m, 'Message size for all-reduce'), { count: 20, sum: 160 });
    t.deepEqual(userEvent(m, 'Message size for broadcast'), { count: 4, sum: 256 });
    t.deepEqual(userEvent(m, 'Message size for reduce'), { count: 2, sum: 32 });
    t.deepEqual(userEvent(m, 'Message size for gather'), { count: 1, sum: 8 });
  }
}

test.serial('hyprof run -- mpirun -np 3: every rank, exact MPI calls and bytes, call sites, nothing of mpirun', async (t) => {
  if (missing) return t.fail(missing);
  const dir = tmpDir('mpi-run-around');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(3), app, 'exchange']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /profile of \d+ threads written to .* \(profile\.\{0\.\.2\}\.0\.\*\)/);
  t.notRegex(r.stderr, /wrote no measurements/);
  const profile = assertRanks(t, dir, 3);
  assertExchange(t, profile, 3);
  // Call sites: the program's own lines, per MPI call.
  const sites = JSON.parse(rankMain(profile, 1)?.metadata.find(([k]) => k === 'hyprof MPI call sites')?.[1] ?? '[]') as Array<{
    call: string;
    location: string;
    calls: number;
  }>;
  const allreduce = sites.find((s) => s.call === 'MPI_Allreduce()');
  t.regex(allreduce?.location ?? '', /mpi_app\.c:\d+ \(exchange\)/);
  t.is(allreduce?.calls, 20);
});

test.serial('mpirun -np 2 hyprof run -- app: each rank resolves its own files, neither deletes the other', async (t) => {
  if (missing) return t.fail(missing);
  const dir = tmpDir('mpi-run-inside');
  const r = await run('mpirun', [...mpirunArgs(2), process.execPath, cliPath, 'run', '--dir', dir, '--', app, 'exchange']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /\(profile\.0\.0\.\*\)/);
  t.regex(r.stderr, /\(profile\.1\.0\.\*\)/);
  assertExchange(t, assertRanks(t, dir, 2), 2);
  assertConformant(dir);
});

test.serial('a linked program under mpirun: each rank resolves at exit into one directory; an earlier run with more ranks is cleared', async (t) => {
  if (missing) return t.fail(missing);
  const dir = tmpDir('mpi-linked');
  const env = { HYPROF_DIR: dir, HYPROF_SAMPLING: '0' };
  const first = await run('mpirun', [...mpirunArgs(3), '-x', 'HYPROF_DIR', '-x', 'HYPROF_SAMPLING', linked, 'exchange'], { env });
  t.is(first.code, 0, first.stderr);
  assertRanks(t, dir, 3);
  // Age the first run's files: the second run starts later than they were written.
  const past = new Date(Date.now() - 60_000);
  for (const f of profileFiles(dir)) utimesSync(join(dir, f), past, past);
  const second = await run('mpirun', [...mpirunArgs(2), '-x', 'HYPROF_DIR', '-x', 'HYPROF_SAMPLING', linked, 'exchange'], { env });
  t.is(second.code, 0, second.stderr);
  const profile = assertRanks(t, dir, 2);
  assertExchange(t, profile, 2);
  for (const f of profileFiles(dir)) t.true(statSync(join(dir, f)).mtimeMs > past.getTime(), `${f} is of the second run`);
});

test.serial('a rank that crashes is counted as lost and said; the others are kept', async (t) => {
  if (missing) return t.fail(missing);
  const dir = tmpDir('mpi-crash');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(3), app, 'crash', '1']);
  t.not(r.code, 0, 'mpirun reports the crash, and hyprof passes its status on');
  t.regex(r.stderr, /hyprof: warning: rank 1 of 3 wrote no measurements/);
  t.regex(r.stderr, /profile\.\{0,2\}\.0\.\*/);
  const files = profileFiles(dir);
  t.true(files.includes('profile.0.0.0') && files.includes('profile.2.0.0'), files.join(' '));
  t.false(files.some((f) => f.startsWith('profile.1.')));
  const report = await hyprof(['report', dir, '--thread', 'mean']);
  t.is(report.code, 0, report.stderr);
  t.regex(report.stdout + report.stderr, /rank 1 of 3 wrote no measurements/);
});

test.serial('a linked program whose rank crashes: the others, stopped by the launcher, leave raw files; report says how to resolve them; the lost rank is named', async (t) => {
  if (missing) return t.fail(missing);
  const dir = tmpDir('mpi-linked-crash');
  const env = { HYPROF_DIR: dir, HYPROF_SAMPLING: '0' };
  // Open MPI kills the stopped ranks 1 s after its SIGTERM by default, too soon for their write on a
  // loaded machine (docs/mpi.md): `hyprof run` gives its launcher 3 s; a linked program's user says so.
  const grace = ['--mca', 'odls_base_sigkill_timeout', '3'];
  const r = await run('mpirun', [...mpirunArgs(3), ...grace, '-x', 'HYPROF_DIR', '-x', 'HYPROF_SAMPLING', linked, 'crash', '1'], { env });
  t.not(r.code, 0);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 2, `ranks 0 and 2 wrote their measurements when the launcher stopped them: ${readdirSync(dir).join(' ')}`);
  t.deepEqual(profileFiles(dir), []);
  const early = await hyprof(['report', dir]);
  t.is(early.code, 2);
  t.true(early.stderr.includes(`it holds 2 raw measurement files (*.raw) not resolved yet (processes stopped by a signal write them): hyprof resolve ${dir} -o ${dir}`), early.stderr);
  const res = await hyprof(['resolve', dir, '-o', dir]);
  t.is(res.code, 0, res.stderr);
  t.regex(res.stderr, /hyprof: warning: rank 1 of 3 wrote no measurements/);
  t.deepEqual([...new Set(profileFiles(dir).map((f) => f.split('.')[1]))], ['0', '2']);
  const rep = await hyprof(['report', dir, '--thread', 'mean']);
  t.regex(rep.stdout, /WARNING: rank 1 of 3 wrote no measurements/);
});

test.serial('a rank that calls MPI_Abort writes its measurements first; the ranks the launcher kills write theirs', async (t) => {
  if (missing) return t.fail(missing);
  const dir = tmpDir('mpi-abort');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(3), app, 'abort', '2']);
  t.not(r.code, 0);
  t.notRegex(r.stderr, /wrote no measurements/);
  const profile = readTauProfileDir(dir);
  t.deepEqual([...new Set(profile.threads[0].map((x) => x.node))].sort(), [0, 1, 2]);
  t.is(calls(rankMain(profile, 2), 'MPI_Abort()'), 1);
  t.true(readWithTau(dir).ok);
});

test.serial('hyprof run gives an Open MPI launcher 3 s between its SIGTERM and SIGKILL of stopped ranks, unless the user set it', async (t) => {
  if (missing) return t.fail(missing);
  // The ranks print what mpirun read: Open MPI passes OMPI_MCA_* on to them.
  const show = ['sh', '-c', 'echo "grace=$OMPI_MCA_odls_base_sigkill_timeout"'];
  const given = await hyprof(['run', '--dir', tmpDir('mpi-grace'), '--no-sampling', '--', 'mpirun', ...mpirunArgs(1), ...show], { env: { OMPI_MCA_odls_base_sigkill_timeout: undefined } });
  t.is(given.code, 0, given.stderr);
  t.regex(given.stdout, /^grace=3$/m);
  const kept = await hyprof(['run', '--dir', tmpDir('mpi-grace-user'), '--no-sampling', '--', 'mpirun', ...mpirunArgs(1), ...show], { env: { OMPI_MCA_odls_base_sigkill_timeout: '5' } });
  t.is(kept.code, 0, kept.stderr);
  t.regex(kept.stdout, /^grace=5$/m);
});

test.serial('ranks measured with different settings: the difference is named with the ranks', async (t) => {
  if (missing) return t.fail(missing);
  const dir = tmpDir('mpi-mismatch');
  const base = ['--oversubscribe', '--allow-run-as-root', '--mca', 'btl', 'self,vader'];
  const r = await hyprof([
    'run', '--dir', dir, '--', 'mpirun', ...base,
    '-np', '1', '-x', 'HYPROF_CALLPATH=1', app, 'exchange', ':',
    '-np', '1', '-x', 'HYPROF_CALLPATH=0', app, 'exchange',
  ]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /hyprof: warning: ranks were measured with different settings: HYPROF_CALLPATH is on \(rank 0\), off \(rank 1\)/);
  assertRanks(t, dir, 2);
});

test.serial('the rank from the launcher\'s environment (Open MPI, PMIx, MPICH / Hydra, MVAPICH, Slurm) with no MPI at all; a variable that is not a rank is said', async (t) => {
  const src = join(tmpDir('env-rank-src'), 'plain.c');
  writeFileSync(src, '#include <stdio.h>\nint main(void) { puts("x"); return 0; }\n');
  const plain = compileC('plain', [src], { link: false });
  const cases: Array<[Record<string, string>, number, string, string | undefined, string | undefined]> = [
    [{ OMPI_COMM_WORLD_RANK: '2', OMPI_COMM_WORLD_SIZE: '4', OMPI_MCA_ess_base_jobid: '77' }, 2, 'OMPI_COMM_WORLD_RANK', '4', 'openmpi:77'],
    [{ PMIX_RANK: '1', OMPI_COMM_WORLD_SIZE: '2', PMIX_NAMESPACE: 'job9' }, 1, 'PMIX_RANK', '2', 'pmix:job9'],
    [{ PMI_RANK: '3', PMI_SIZE: '4' }, 3, 'PMI_RANK', '4', undefined],
    [{ MV2_COMM_WORLD_RANK: '1', MV2_COMM_WORLD_SIZE: '3' }, 1, 'MV2_COMM_WORLD_RANK', '3', undefined],
    [{ SLURM_PROCID: '5', SLURM_NTASKS: '8', SLURM_JOB_ID: '123', SLURM_STEP_ID: '4' }, 5, 'SLURM_PROCID', '8', 'slurm:123.4'],
  ];
  for (const [env, node, source, size, runId] of cases) {
    const dir = tmpDir('env-rank');
    const r = await hyprof(['run', '--dir', dir, '--', plain], { env });
    t.is(r.code, 0, r.stderr);
    t.deepEqual(profileFiles(dir), [`profile.${node}.0.0`], source);
    const meta = new Map(readTauProfileDir(dir).threads[0][0].metadata);
    t.is(meta.get('MPI Rank'), String(node));
    t.is(meta.get('MPI Rank Source'), source);
    t.is(meta.get('MPI World Size'), size);
    t.is(meta.get('MPI Run Id'), runId);
  }
  const bad = tmpDir('env-rank-bad');
  const r = await hyprof(['run', '--dir', bad, '--', plain], { env: { PMI_RANK: 'two', PMI_SIZE: '4' } });
  t.is(r.code, 0, r.stderr);
  t.true(r.stderr.includes("hyprof: PMI_RANK=two is not a rank (a whole number): this process's rank is not taken from it\n"), r.stderr);
  t.deepEqual(profileFiles(bad), ['profile.0.0.0']);
  const small = tmpDir('env-rank-size');
  const r2 = await hyprof(['run', '--dir', small, '--', plain], { env: { PMI_RANK: '5', PMI_SIZE: '4' } });
  t.is(r2.code, 0, r2.stderr);
  t.true(r2.stderr.includes('hyprof: PMI_SIZE=4 is not a number of ranks above PMI_RANK=5: the size of the run is not known\n'), r2.stderr);
  t.deepEqual(profileFiles(small), ['profile.5.0.0']);
});

test.serial('mpirun missing: the message names it and asks whether MPI is installed; exit 127', async (t) => {
  const dir = tmpDir('mpi-missing');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', '-np', '2', '/bin/true'], { env: { PATH: '/nonexistent' } });
  t.is(r.code, 127);
  t.is(r.stderr, "hyprof: cannot run 'mpirun': no such file or command (is MPI installed, and its bin directory on the PATH?)\n");
  t.deepEqual(profileFiles(dir), []);
});

test.serial('the MPI layer loads into a program without MPI and does nothing there, even with eager binding', async (t) => {
  if (missing) return t.fail(missing);
  const dir = tmpDir('mpi-nompi');
  const src = join(tmpDir('mpi-nompi-src'), 'plain.c');
  writeFileSync(src, '#include <stdio.h>\nint main(void) { printf("hello\\n"); return 0; }\n');
  const plain = compileC('plain', [src], { link: false });
  const r = await hyprof(['run', '--dir', dir, '--', plain], { env: { LD_BIND_NOW: '1' } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'hello\n');
  const profile = readTauProfileDir(dir);
  t.false(profile.threads[0].some((x) => x.events.some((e) => e.group === 'MPI')));
  t.false(profile.threads[0].some((x) => x.metadata.some(([k]) => k === 'MPI Rank')));
});

test.serial('programs that choose their node (hyprof_set_node) and resolve at exit into one directory keep each other\'s files', async (t) => {
  const src = join(tmpDir('setnode-src'), 'setnode.c');
  writeFileSync(
    src,
    '#include <hyprof.h>\n#include <stdlib.h>\nstatic volatile double s;\n' +
      'int main(int c, char **v) { hyprof_set_node(atoi(v[1])); hyprof_start_named("work");\n' +
      '  for (long i = 1; i < 30000000; i++) s += 1.0 / i; hyprof_stop_named("work"); return 0; }\n',
  );
  const exe = compileC('setnode', [src]);
  const dir = tmpDir('setnode');
  const env = { HYPROF_DIR: dir, HYPROF_SAMPLING: '0' };
  const [a, b] = await Promise.all([run(exe, ['0'], { env }), run(exe, ['1'], { env })]);
  t.is(a.code, 0, a.stderr);
  t.is(b.code, 0, b.stderr);
  t.deepEqual(profileFiles(dir), ['profile.0.0.0', 'profile.1.0.0'], 'neither resolve deleted the other\'s file');
  const again = await run(exe, ['0'], { env });
  t.is(again.code, 0, again.stderr);
  t.deepEqual(profileFiles(dir), ['profile.0.0.0', 'profile.1.0.0'], 'a later run of node 0 leaves node 1 alone');
});
