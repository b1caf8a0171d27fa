/**
 * `hyprof run` on a gcc-built OpenMP program (libgomp has no tools interface: LLVM libomp is put in
 * its place and the user is told so, once), and `hyprof report --openmp / --diagnose` on the result.
 */
import test from 'ava';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findLibomp } from '../src/analysis/openmp-runtime.js';
import { compileC, hyprof, libPath, tmpDir } from './helpers/native.js';
import { displayName } from '../src/profile/tau-model.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

const PROGRAM = `
#include <stdio.h>
static double work(long n) { double s = 0; for (long i = 1; i <= n; i++) s += 1.0 / (double)i; return s; }
int main(void) {
  double t = 0;
  #pragma omp parallel for reduction(+:t) schedule(static) num_threads(2)
  for (int i = 0; i < 40; i++) t += work(200000 + i * 40000);
  printf("%.3f\\n", t);
  return 0;
}
`;

let program = '';
let profileDir = '';
let runResult: Awaited<ReturnType<typeof hyprof>> | undefined;
test.before(async () => {
  if (!existsSync(libPath)) return;
  const dir = tmpDir('cli-openmp');
  writeFileSync(join(dir, 'omp.c'), PROGRAM);
  program = compileC('omp', [join(dir, 'omp.c')], { link: false, cflags: ['-O2', '-g', '-fopenmp'], outDir: dir });
  profileDir = join(dir, 'prof');
  runResult = await hyprof(['run', '--dir', profileDir, '--', program]);
});

test('a gcc OpenMP program runs on libomp under hyprof run, said once, with OpenMP events', async (t) => {
  if (!runResult) return t.fail(`the native runtime is not built: ${libPath}`);
  const r = runResult;
  t.is(r.code, 0, r.stderr);
  const libomp = findLibomp();
  if (!libomp) {
    t.regex(r.stderr, /GNU libgomp, which has no OpenMP tools interface, and LLVM libomp is not installed/);
    return;
  }
  const note = `GNU libgomp replaced by LLVM libomp (${libomp})`;
  t.is(r.stderr.split(note).length - 1, 1, r.stderr);
  t.regex(r.stderr, /hyprof: profile of 2 threads written to /);
  t.deepEqual(readdirSync(profileDir).filter((f) => f.startsWith('profile.')).sort(), ['profile.0.0.0', 'profile.0.0.1']);
  const names = readTauProfileDir(profileDir).threads[0][0].events.map((e) => displayName(e.name));
  t.true(names.some((n) => /^OpenMP_Parallel_Region main \[\{.*omp\.c\} \{\d+, 0\}\]$/.test(n)), names.join('\n'));
});

test('report --openmp and --diagnose read the analysis beside the profile', async (t) => {
  if (!runResult) return t.fail(`the native runtime is not built: ${libPath}`);
  if (!findLibomp()) return t.fail('LLVM libomp is missing: install libomp-dev (scripts/install-deps.sh)');
  const r = await hyprof(['report', profileDir, '--openmp']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /OpenMP runtime: LLVM OMP/);
  t.regex(r.stdout, /NOTE: GNU libgomp replaced by LLVM libomp/);
  t.regex(r.stdout, /Parallel regions: overhead classes/);
  t.regex(r.stdout, /omp\.c:\d+/);
  const d = await hyprof(['report', profileDir, '--diagnose']);
  t.is(d.code, 0, d.stderr);
  t.regex(d.stdout, /^Process /);
  const j = await hyprof(['report', profileDir, '--openmp', '--json']);
  t.is(j.code, 0, j.stderr);
  const data = JSON.parse(j.stdout) as { processes: unknown[] };
  t.is(data.processes.length, 1);
});

test('report --openmp on a profile without OpenMP measurements says why', async (t) => {
  const dir = tmpDir('cli-openmp-none');
  const r = await hyprof(['report', dir, '--openmp']);
  t.is(r.code, 2);
  t.regex(r.stderr, /^hyprof: .*: no OpenMP measurements \(openmp\.json is missing\)\./);
  t.is(r.stderr.split('\n').length, 2);
});
