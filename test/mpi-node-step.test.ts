/**
 * The resolve of a large job as a step of the job's own MPI (docs/mpi.md, "Resolve per node"): ranks
 * started by hyprof-exec write their raw files into per-node subdirectories (`.hyprof-raw/<node>/`),
 * and `mpirun ... hyprof resolve --per-node` resolves each node's files in its own process, the last
 * writing the profile. On this one machine 8 ranks of a gcc-built MPI + OpenMP program run on 4
 * emulated nodes (HYPROF_RAW_NODE, 2 ranks each); the step of 4 processes must write exactly the
 * files a plain `hyprof resolve` of the same raw files writes (thread files and the analyses beside
 * them, then TAU's merged file), say one summary for the job, leave nothing of its own behind, and
 * refuse to run outside a launcher with one clear line.
 */
import test from 'ava';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, hyprof, repoRoot, run, tmpDir } from './helpers/native.js';
import { compileMpiC, mpiMissing, mpirunArgs } from './helpers/mpi.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { stepProcess } from '../src/run/node-step.js';

const execPath = join(repoRoot, 'bin', 'hyprof-exec');
const RANKS = 8;
const NODES = 4;

/** Every file under a directory (relative paths), sorted. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile()).sort();
}

/** The step: `mpirun -np 4 hyprof resolve --per-node RAW -o OUT` (4 processes for 4 emulated nodes). */
const step = (raw: string, out: string, more: string[] = []) =>
  run('mpirun', [...mpirunArgs(NODES), process.execPath, cliPath, 'resolve', '--per-node', raw, '-o', out, ...more]);

test.serial('resolve per node as a job step: the profile of a plain resolve, per-node raw subdirectories', async (t) => {
  const missing = mpiMissing();
  if (missing) return t.fail(missing);
  const exe = compileMpiC('mpi_omp_gcc_step', 'mpi_omp.c', false, { cflags: ['-fopenmp'] });
  const job = tmpDir('node-step-job');
  // Two ranks per emulated node: the node's name from the rank, as a batch system's host names would.
  const launch = `HYPROF_RAW_NODE=node$((OMPI_COMM_WORLD_RANK / 2)) exec "$0" --dir "$1" "$2"`;
  const r = await run('mpirun', [...mpirunArgs(RANKS), 'sh', '-c', launch, execPath, job, exe], { env: { OMP_NUM_THREADS: '2' } });
  t.is(r.code, 0, r.stderr);
  const raw = join(job, '.hyprof-raw');
  t.deepEqual(readdirSync(raw).sort(), ['node0', 'node1', 'node2', 'node3'], 'one subdirectory per node');
  for (const n of readdirSync(raw)) t.is(readdirSync(join(raw, n)).filter((f) => f.endsWith('.raw')).length, 2, `${n}: its 2 ranks' raw files`);

  // The same raw files three times: the plain resolve and the step each remove what they resolved.
  const raws = ['plain', 'step', 'plain-merged', 'step-merged'].map((k) => {
    const d = join(tmpDir(`node-step-${k}`), '.hyprof-raw');
    cpSync(raw, d, { recursive: true });
    return d;
  });
  const outs = { plain: tmpDir('node-step-out-plain'), step: tmpDir('node-step-out-step'), plainMerged: tmpDir('node-step-out-pm'), stepMerged: tmpDir('node-step-out-sm') };
  const plain = await hyprof(['resolve', raws[0], '-o', outs.plain]);
  t.is(plain.code, 0, plain.stderr);
  const s = await step(raws[1], outs.step);
  t.is(s.code, 0, s.stderr);

  const want = filesUnder(outs.plain);
  t.true(want.includes('openmp.json') && want.includes('modules.json'), want.join(' '));
  t.true(want.filter((f) => /^profile\.\d+\.0\.\d+$/.test(f)).length >= RANKS, want.join(' '));
  t.deepEqual(filesUnder(outs.step), want, 'the same files');
  for (const f of want.filter((x) => /^profile\./.test(x))) t.true(readFileSync(join(outs.step, f)).equals(readFileSync(join(outs.plain, f))), `${f}: the same bytes`);
  // The analyses beside the profile hold the same entries. Their order is not part of them: a plain
  // resolve of 8 files or more lists processes as its worker threads finish. The OpenMP analysis names
  // each process's raw file, whose copies' paths differ.
  const entries = (dir: string, f: string, rawDir: string): string[] => {
    const d = JSON.parse(readFileSync(join(dir, f), 'utf8').split(rawDir).join('RAW'));
    if (f === 'modules.json') return d.functions.map(([fn, file, i]: [string, string, number]) => JSON.stringify([fn, file, d.modules[i]])).sort();
    return [...d.processes, ...d.withoutTool].map((x: unknown) => JSON.stringify(x)).sort();
  };
  for (const f of ['openmp.json', 'modules.json']) t.deepEqual(entries(outs.step, f, raws[1]), entries(outs.plain, f, raws[0]), `${f}: the same entries`);

  // One summary for the job, from the process that reduced; the run's notes as the plain resolve's.
  const summary = s.stderr.split('\n').filter((l) => l.includes('written to'));
  t.is(summary.length, 1, s.stderr);
  t.regex(summary[0], new RegExp(`resolved on ${NODES} processes from ${NODES} node directories`));
  // The notes name a process's raw file (a copy's path; a plain resolve names the first its workers finished).
  const notes = (e: string) => e.split('\n').filter((l) => l.startsWith('hyprof: warning')).map((l) => l.replace(/\S+\.raw\b/g, 'RAW')).sort();
  t.deepEqual(notes(s.stderr), notes(plain.stderr));
  t.false(existsSync(raws[1]), 'the raw directory is removed once resolved');
  t.deepEqual(readdirSync(outs.step).filter((f) => f.startsWith('.hyprof')), [], "nothing of the step's own is left");
  const tau = readWithTau(outs.step);
  t.true(tau.ok, tauReaderComplaints(tau));

  // TAU's merged format: the reduction writes the one file from every node's thread files.
  const pm = await hyprof(['resolve', raws[2], '-o', outs.plainMerged, '--format', 'merged']);
  t.is(pm.code, 0, pm.stderr);
  const sm = await step(raws[3], outs.stepMerged, ['--format', 'merged']);
  t.is(sm.code, 0, sm.stderr);
  t.deepEqual(filesUnder(outs.stepMerged), filesUnder(outs.plainMerged));
  t.true(readFileSync(join(outs.stepMerged, 'tauprofile.xml')).equals(readFileSync(join(outs.plainMerged, 'tauprofile.xml'))), 'the same merged file');
});

test.serial('resolve --per-node: a damaged raw file on one node fails the step with one clear line, nothing left', async (t) => {
  const raw = join(tmpDir('node-step-bad'), '.hyprof-raw');
  for (const n of ['n0', 'n1']) {
    mkdirSync(join(raw, n), { recursive: true });
    writeFileSync(join(raw, n, `hyprof.${n}.1.1.raw`), 'not a raw file\n');
  }
  const out = join(tmpDir('node-step-bad-out'), 'prof');
  const r = await run('mpirun', [...mpirunArgs(2), process.execPath, cliPath, 'resolve', '--per-node', raw, '-o', out]);
  t.not(r.code, 0);
  t.regex(r.stderr, /^hyprof: \S+\/n[01]\/hyprof\.n[01]\.1\.1\.raw: offset 0: header: expected the magic "HYPROFRW" \(not a hyprof raw file\)$/m);
  t.false(existsSync(out) && readdirSync(out).length > 0, 'no profile and no step directory left');
  t.true(existsSync(join(raw, 'n0')), 'the raw files are kept');
});

test.serial('resolve --per-node outside a job step: one clear line, nothing written', async (t) => {
  const dir = tmpDir('node-step-alone');
  const out = join(dir, 'out');
  const r = await hyprof(['resolve', '--per-node', dir, '-o', out], {
    env: { OMPI_COMM_WORLD_RANK: undefined, OMPI_COMM_WORLD_SIZE: undefined, PMI_RANK: undefined, PMI_SIZE: undefined, SLURM_PROCID: undefined, SLURM_NTASKS: undefined },
  });
  t.not(r.code, 0);
  t.regex(r.stderr, /^hyprof: hyprof resolve --per-node runs as a step of an MPI job, one process per node .*mpirun --map-by ppr:1:node hyprof resolve --per-node RAW -o DIR\n$/);
  t.false(existsSync(out));
});

test('resolve --per-node under a launcher that gives a rank but no job id: one line naming HYPROF_STEP_ID; the id is made a plain name', (t) => {
  const e = t.throws(() => stepProcess({ PMI_RANK: '1', PMI_SIZE: '4' }));
  t.regex(e!.message, /^hyprof resolve --per-node: PMI_RANK is set but the launcher gives no job id .*set HYPROF_STEP_ID to one name for the step$/);
  t.deepEqual(stepProcess({ PMI_RANK: '1', PMI_SIZE: '4', HYPROF_STEP_ID: '../x y' }), { rank: 1, size: 4, job: '.._x_y' });
  // a rank outside the size is no launcher's
  t.throws(() => stepProcess({ PMI_RANK: '4', PMI_SIZE: '4', HYPROF_STEP_ID: 's' }), { message: /runs as a step of an MPI job/ });
});
