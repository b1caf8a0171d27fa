/**
 * Many ranks: a generated run of 32 ranks x 4 threads (test/helpers/gen-ranks.ts: realistic raw
 * files, symbolized for real) resolved on worker threads, reported in one pass, written in TAU's
 * merged format too; a rank missing from the run is named; and a real run of 8 oversubscribed ranks
 * resolved on workers. (The 1,024-rank figures are measured in bench/mpi-scale.ts.)
 */
import test from 'ava';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { hyprof, repoRoot, tmpDir } from './helpers/native.js';
import { generateRanks } from './helpers/gen-ranks.js';
import { calls, compileMpiC, mpiMissing, mpirunArgs, rankMain } from './helpers/mpi.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { RanksReport } from '../src/report/mpi-report.js';
import { encodeRaw, simpleFixture } from './raw-fixture.js';
import { INFO_MPI_RANK } from '../src/samples/raw-model.js';

const RANKS = 32;

/** Python: split a merged file into its <profile_xml> documents, parse each with expat, print how many. */
const WELL_FORMED_BLOCKS = `
import sys, xml.parsers.expat
data = open(sys.argv[1], 'rb').read()
blocks = data.split(b'</profile_xml>')
if blocks.pop().strip(): sys.exit('text after the last </profile_xml>')
for i, b in enumerate(blocks):
    if not b.lstrip().startswith(b'<profile_xml>'): sys.exit('block %d does not start with <profile_xml>' % i)
    xml.parsers.expat.ParserCreate().Parse(b + b'</profile_xml>', True)
print(len(blocks))
`;
const THREADS = 4;
let raw = '';
test.before(() => {
  raw = tmpDir('scale-raw');
  generateRanks(raw, { ranks: RANKS, threads: THREADS });
});

test.serial('32 ranks x 4 threads: resolved on workers, every thread file, TAU reads them, the report sees every rank', async (t) => {
  const out = tmpDir('scale-out');
  const r = await hyprof(['resolve', raw, '-o', out], { env: { HYPROF_RESOLVE_WORKERS: '2' } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /profile of 128 threads written to .* \(profile\.\{0\.\.31\}\.0\.\*\)/);
  t.notRegex(r.stderr, /wrote no measurements/);
  const files = readdirSync(out).filter((f) => f.startsWith('profile.'));
  t.is(files.length, RANKS * THREADS);
  const tau = readWithTau(out);
  t.true(tau.ok, tauReaderComplaints(tau));
  t.is(tau.num_threads, RANKS * THREADS);
  const rep = await hyprof(['report', out, '--json']);
  t.is(rep.code, 0, rep.stderr);
  const ranks = (JSON.parse(rep.stdout) as { ranks: RanksReport }).ranks;
  t.is(ranks.ranks, RANKS);
  t.is(ranks.worldSize, RANKS);
  t.deepEqual(ranks.notes, []);
  // The generated run: the last rank computes twice what rank 0 does.
  t.is(ranks.stats.find((s) => s.name === 'compute_flux')?.maxAt.split(',')[0], String(RANKS - 1));
  const text = await hyprof(['report', out]);
  t.regex(text.stdout, /128 threads: the mean is printed/);
  t.regex(text.stdout, /RANKS: 32 ranks of 32, 128 threads/);
  const diag = await hyprof(['report', out, '--diagnose']);
  t.regex(diag.stdout, /Load imbalance between MPI ranks at /);
});

test.serial('the merged format holds the same threads and values as the thread files, and TAU reads it', async (t) => {
  const raw = tmpDir('scale-merged-raw');
  generateRanks(raw, { ranks: 16, threads: 2 });
  const files = tmpDir('scale-files');
  const merged = tmpDir('scale-merged');
  t.is((await hyprof(['resolve', raw, '-o', files], { env: { HYPROF_RESOLVE_WORKERS: '0' } })).code, 0);
  const r = await hyprof(['resolve', raw, '-o', merged, '--format', 'merged'], { env: { HYPROF_RESOLVE_WORKERS: '2' } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /written to .* \(tauprofile\.xml\)/);
  t.deepEqual(readdirSync(merged).filter((f) => f.startsWith('profile.') || f.startsWith('tauprofile')), ['tauprofile.xml']);
  const a = readTauProfileDir(files).threads[0];
  const b = readTauProfileDir(merged).threads[0];
  t.is(b.length, a.length);
  for (const i of [0, 1, 17, a.length - 1]) {
    const x = a[i];
    const y = b.find((z) => z.node === x.node && z.context === x.context && z.thread === x.thread)!;
    t.truthy(y, `thread ${x.node},${x.context},${x.thread}`);
    const key = (e: { name: string; calls: number; subrs: number; excl: number; incl: number }) => `${e.name}|${e.calls}|${e.subrs}|${e.excl}|${e.incl}`;
    t.deepEqual(y.events.map(key).sort(), x.events.map(key).sort());
    t.deepEqual(y.userEvents, x.userEvents);
  }
  const tau = readWithTau(join(merged, 'tauprofile.xml'));
  t.true(tau.ok, tauReaderComplaints(tau));
  t.is(tau.num_threads, 32);
  // TAU's merged file is a run of <profile_xml> documents (definitions, one per thread, the derived
  // statistics): each one well-formed XML to a real parser (Python's expat), nothing between them.
  const check = spawnSync('python3', ['-c', WELL_FORMED_BLOCKS, join(merged, 'tauprofile.xml')], { encoding: 'utf8' });
  t.is(check.status, 0, check.stderr);
  t.is(check.stdout.trim(), String(1 + 32 + 7), 'definitions, 32 threads, 7 derived blocks');
  const rep = await hyprof(['report', merged, '--json']);
  t.is((JSON.parse(rep.stdout) as { ranks: RanksReport }).ranks.ranks, 16);
});

test.serial('TAU_PROFILE_FORMAT=merged chooses the merged file; a value hyprof does not write is said', async (t) => {
  const raw = tmpDir('scale-env-raw');
  generateRanks(raw, { ranks: 2, threads: 1 });
  const merged = tmpDir('scale-env-merged');
  const r = await hyprof(['resolve', raw, '-o', merged], { env: { TAU_PROFILE_FORMAT: 'merged' } });
  t.is(r.code, 0, r.stderr);
  t.deepEqual(readdirSync(merged).filter((f) => f.startsWith('profile.') || f.startsWith('tauprofile')), ['tauprofile.xml']);
  const other = tmpDir('scale-env-other');
  const s = await hyprof(['resolve', raw, '-o', other], { env: { TAU_PROFILE_FORMAT: 'snapshot' } });
  t.is(s.code, 0, s.stderr);
  t.true(
    s.stderr.includes('hyprof: warning: TAU_PROFILE_FORMAT=snapshot is not a format hyprof writes (profile or merged): profile.<node>.<context>.<thread> files are written\n'),
    s.stderr,
  );
  t.deepEqual(readdirSync(other).filter((f) => f.startsWith('profile.')).sort(), ['profile.0.0.0', 'profile.1.0.0']);
  const opt = await hyprof(['resolve', raw, '-o', tmpDir('scale-env-opt'), '--format', 'profile'], { env: { TAU_PROFILE_FORMAT: 'snapshot' } });
  t.notRegex(opt.stderr, /TAU_PROFILE_FORMAT/, 'the option decides; the variable is not read');
});

test.serial('a rank missing from the raw files of a run is named; merged output of one rank alone is refused', async (t) => {
  const some = tmpDir('scale-some');
  const subset = generateRanks(some, { ranks: 8, threads: 1 });
  rmSync(subset[5]);
  const out = tmpDir('scale-some-out');
  const r = await hyprof(['resolve', some, '-o', out]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /hyprof: warning: rank 5 of 8 wrote no measurements/);
  const one = await hyprof(['resolve', subset[0], '-o', tmpDir('scale-one'), '--format', 'merged']);
  t.is(one.code, 2);
  t.regex(one.stderr, /hyprof: TAU_PROFILE_FORMAT=merged: one file holds every rank, and these raw files are one rank's/);
});

test.serial('ranks whose files hold different metrics: an error naming both files and ranks, nothing written', async (t) => {
  const raw = tmpDir('scale-metrics');
  const rank = (node: number, metrics: string[]) => {
    const f = simpleFixture();
    f.node = node;
    f.pid = 5000 + node;
    f.flags = INFO_MPI_RANK;
    f.metrics = metrics;
    f.attributes = [['Hostname', 'testhost'], ['MPI World Size', '2']];
    for (const th of f.threads) for (const st of th.stats) {
      st.incl = metrics.map(() => st.incl[0]);
      st.excl = metrics.map(() => st.excl[0]);
    }
    const file = join(raw, `rank${node}.raw`);
    writeFileSync(file, encodeRaw(f));
    return file;
  };
  const a = rank(0, ['TIME']);
  const b = rank(1, ['TIME', 'PAPI_TOT_CYC']);
  const out = tmpDir('scale-metrics-out');
  const r = await hyprof(['resolve', raw, '-o', out]);
  t.is(r.code, 2);
  t.is(
    r.stderr,
    `hyprof: ${b} (rank 1) measured TIME, PAPI_TOT_CYC but ${a} (rank 0) measured TIME: ` +
      'one profile holds one set of metrics: resolve these files into separate directories\n',
  );
  t.deepEqual(readdirSync(out), []);
});

// What the resolve keeps of every process until it commits the profile, after a full collection
// (test/helpers/resolve-heap.ts): each part kept whole (its list of sampled functions) and each
// rank's settings read anew were about 7.3 KB a rank (0.7 GiB of heap at 100,000 ranks); folded as
// they come, and the shared settings one pair, about 1 KB; since each process keeps only what the
// exec images need (shared lists), its rank record goes to the ranks' summary at once and each file
// written is kept by its short relative name, about 0.3 KB (the file's name and its process's
// numbers: the list of what to resolve and commit).
test.serial('the resolve keeps about 0.3 KB per rank until it commits (200 and 2,000 generated ranks)', (t) => {
  const kept = (ranks: number) => {
    const raw = tmpDir(`scale-heap-${ranks}`);
    generateRanks(raw, { ranks, threads: 1 });
    const out = join(tmpDir(`scale-heap-out-${ranks}`), 'prof');
    const r = spawnSync(process.execPath, ['--expose-gc', join(repoRoot, 'dist', 'test', 'helpers', 'resolve-heap.js'), raw, out], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`resolve-heap ${ranks} failed (${r.status}):\n${r.stderr}`);
    const v = JSON.parse(r.stdout) as { processes: number; kept: number };
    rmSync(raw, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
    if (v.processes !== ranks || v.kept <= 0) throw new Error(`resolve-heap ${ranks}: ${r.stdout}`);
    return v.kept;
  };
  const small = kept(200);
  // 1,800 ranks apart: the heap read after a collection varies by a few hundred KB between runs
  const large = kept(2000);
  const perRank = (large - small) / 1800;
  t.log(`heap kept: ${(small / 2 ** 20).toFixed(1)} MiB at 200 ranks, ${(large / 2 ** 20).toFixed(1)} MiB at 2,000: ${perRank.toFixed(0)} bytes per rank`);
  t.true(perRank < 640, `${perRank.toFixed(0)} bytes kept per rank`);
});

test.serial('a real run of 8 oversubscribed ranks, resolved on workers: every rank, exact calls', async (t) => {
  const missing = mpiMissing();
  if (missing) return t.fail(missing);
  const app = compileMpiC('mpi_app', 'mpi_app.c');
  const dir = tmpDir('scale-real8');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(8), app, 'exchange']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /\(profile\.\{0\.\.7\}\.0\.\*\)/);
  const profile = readTauProfileDir(dir);
  for (let rank = 0; rank < 8; rank++) {
    t.is(calls(rankMain(profile, rank), 'MPI_Allreduce()'), 20, `rank ${rank}`);
    t.is(calls(rankMain(profile, rank), 'MPI_Send()'), 11);
  }
  t.true(readWithTau(dir).ok);
});
