/**
 * The OpenMP commands as a user runs them: `hyprof run` on an OpenMP program (gcc-built too, through
 * LLVM's libomp), then `hyprof report --openmp / --diagnose / --json`, and the error for a profile
 * without OpenMP measurements.
 */
import test from 'ava';
import { join } from 'node:path';
import { hyprof, tmpDir } from './helpers/native.js';
import { buildOmp } from './openmp-helpers.js';

const env = { OMP_NUM_THREADS: '2', HYPROF_PERIOD_US: '2000' };
const clangTest = test.serial;
const gccTest = test.serial;

clangTest('hyprof run, then report --openmp / --diagnose / --json', async (t) => {
  const exe = buildOmp('omp_constructs', 'omp_constructs.c');
  const dir = join(tmpDir('omp-cli'), 'prof');
  const r = await hyprof(['run', '--dir', dir, '--', exe, 'all'], { env: { ...env, HYPROF_OPENMP: 'full' } });
  t.is(r.code, 0, r.stderr);
  const rep = await hyprof(['report', '--openmp', dir]);
  t.is(rep.code, 0, rep.stderr);
  t.regex(rep.stdout, /Findings, strongest first/);
  t.regex(rep.stdout, /Blame by calling context/);
  t.regex(rep.stdout, /Parallel regions: overhead classes/);
  t.regex(rep.stdout, /Lock waiting blamed on release sites:\n.*\n\s*[\d.]+\s+\d+\s+.*omp_constructs\.c:\d+/);
  t.regex(rep.stdout, /Parallel_Region main \(omp_constructs\.c:\d+\)/);
  const diag = await hyprof(['report', '--diagnose', dir]);
  t.is(diag.code, 0);
  t.regex(diag.stdout, /Load imbalance in a work-shared loop at .*omp_constructs\.c:\d+ \[(weak|strong)\]/);
  const json = await hyprof(['report', '--diagnose', '--json', dir]);
  const data = JSON.parse(json.stdout) as { processes: Array<{ diagnoses: Array<{ kind: string }> }> };
  t.true(data.processes[0].diagnoses.some((d) => d.kind === 'loop-imbalance'));
});

gccTest('hyprof run on a gcc-built program substitutes libomp and says so', async (t) => {
  const exe = buildOmp('omp_constructs', 'omp_constructs.c', 'gcc');
  const dir = join(tmpDir('omp-cli-gcc'), 'prof');
  const r = await hyprof(['run', '--dir', dir, '--', exe, 'serial'], { env });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /GNU libgomp replaced by LLVM libomp/);
  const rep = await hyprof(['report', '--openmp', dir]);
  t.regex(rep.stdout, /NOTE: GNU libgomp replaced by LLVM libomp/);
  const diag = await hyprof(['report', '--diagnose', dir]);
  t.regex(diag.stdout, /Serial section leaves threads idle at .*omp_constructs\.c \(spin\)/);
});

test('report --openmp on a profile without OpenMP measurements: clear message, non-zero status', async (t) => {
  const dir = tmpDir('omp-cli-none');
  const r = await hyprof(['report', '--openmp', dir]);
  t.not(r.code, 0);
  t.regex(r.stderr, /no OpenMP measurements \(openmp\.json is missing\)/);
  t.notRegex(r.stderr, /at .*\.js:\d+/, 'no stack trace');
});
