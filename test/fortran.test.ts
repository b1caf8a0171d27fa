/**
 * Fortran: the `hyprof` module (`use hyprof`, built with `hyprof config --fflags --libs`) and TAU's
 * Fortran API (tau_profile_timer_ ... in libhyprof.so), in real gfortran programs run linked and
 * under `hyprof run`: event names with their trailing blanks gone, call counts, phases, parameters,
 * user and context events, metadata, the instrumentation switch; samples named as Fortran
 * (`kernels::relax`, the program `heat` for MAIN__). TAU's strict reader reads every profile (run()
 * and hyprof() check it).
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { haveTool, hyprof, libDir, libPath, repoRoot, run, testNativeDir, tmpDir } from './helpers/native.js';
import { displayName, type TauThreadProfile } from '../src/profile/tau-model.js';
import { calls, group, mainThread, userEvent } from './helpers/profile-queries.js';

async function configWords(...opts: string[]): Promise<string[]> {
  const r = await hyprof(['config', ...opts]);
  if (r.code !== 0) throw new Error(`hyprof config ${opts.join(' ')}: ${r.stderr}`);
  return r.stdout.trim().split(' ');
}

/** Compile a Fortran program of test/native with the flags `hyprof config` prints. */
async function compileFortran(name: string, source: string, withModule: boolean): Promise<string> {
  const out = join(tmpDir(`fc-${name}`), name);
  const args = [
    '-O1',
    '-g',
    '-Wall',
    ...(withModule ? await configWords('--fflags') : []),
    join(testNativeDir, source),
    '-o',
    out,
    ...(await configWords('--libs')),
  ];
  const r = spawnSync('gfortran', args, { encoding: 'utf8', cwd: join(out, '..') });
  if (r.status !== 0) throw new Error(`gfortran ${args.join(' ')} failed:\n${r.stderr}`);
  return out;
}

function missing(): string | null {
  if (!existsSync(libPath)) return `the native runtime is not built: ${libPath}`;
  if (!haveTool('gfortran')) return 'gfortran is not installed (scripts/install-deps.sh installs it)';
  return null;
}





function checkTauFortran(t: import('ava').ExecutionContext, p: TauThreadProfile): void {
  t.is(calls(p, 'main program'), 1, 'the blank-padded name lost its blanks');
  t.is(group(p, 'main program'), 'TAU_DEFAULT');
  t.is(calls(p, 'work'), 4, 'once in setup, three times in iterations, not while off');
  t.is(calls(p, 'work [ <n> = <1> ]'), 1);
  t.is(calls(p, 'work [ <n> = <2> ]'), 3);
  t.is(calls(p, 'work [ <n> = <3> ]'), undefined);
  for (const phase of ['setup', 'Iteration 1', 'Iteration 2', 'Iteration 3', 'static phase']) t.regex(group(p, phase) ?? '', /\|TAU_PHASE$/, phase);
  t.is(calls(p, '.TAU application => main program => Iteration 2 => work'), 1);
  t.is(calls(p, 'by name'), 1);
  t.deepEqual(userEvent(p, 'iteration value'), { count: 3, sum: 6 });
  t.deepEqual(userEvent(p, 'context value'), { count: 3, sum: 4.5 });
  for (const i of [1, 2, 3]) t.deepEqual(userEvent(p, `context value : .TAU application => main program => Iteration ${i}`), { count: 1, sum: 1.5 });
  t.is(p.metadata.find(([k]) => k === 'fortran key')?.[1], 'fortran value');
}

test.serial("TAU's Fortran API links with -lhyprof alone and works, linked and under hyprof run", async (t) => {
  const why = missing();
  if (why) return t.fail(why);
  const exe = await compileFortran('fortran_tau', 'fortran_tau.f90', false);
  const linked = tmpDir('ftau');
  const r = await run(exe, [], { env: { HYPROF_DIR: linked } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /taufortran done/);
  checkTauFortran(t, mainThread(linked));
  const ran = tmpDir('ftau-run');
  const h = await hyprof(['run', '--dir', ran, '--no-sampling', '--', exe]);
  t.is(h.code, 0, h.stderr);
  checkTauFortran(t, mainThread(ran));
});

test.serial('use hyprof: the module API, linked; samples named kernels::relax and heat under hyprof run', async (t) => {
  const why = missing();
  if (why) return t.fail(why);
  const exe = await compileFortran('fortran_module', 'fortran_module.f90', true);
  const linked = tmpDir('fmod');
  const r = await run(exe, [], { env: { HYPROF_DIR: linked, HYPROF_SAMPLING: '0' } });
  t.is(r.code, 0, r.stderr);
  const check = (p: TauThreadProfile) => {
    t.is(calls(p, 'total'), 1);
    t.is(group(p, 'total'), 'TAU_USER', 'no group given: TAU_USER');
    t.is(group(p, 'setup'), 'INIT');
    t.is(calls(p, 'relax'), 3, 'the blank-padded name, three times; not while off');
    t.is(calls(p, 'relax [ <n> = <4000> ] [ <sweeps> = <4000> ]'), 3, 'integer and integer(8) parameters');
    for (const i of [1, 2, 3]) {
      t.is(group(p, `Iteration ${i}`), 'TAU_USER|TAU_PHASE');
      t.is(calls(p, `.TAU application => total => Iteration ${i} => relax`), 1);
    }
    const resid = p.userEvents.find((u) => u.name === 'residual');
    t.is(resid?.count, 15, 'real(8), real, integer, integer(8) and the context event, three times each; none while off');
    t.is(resid?.max, 3);
    for (const i of [1, 2, 3]) t.deepEqual(userEvent(p, `residual : .TAU application => total => Iteration ${i}`), { count: 1, sum: 2.5 });
    t.is(p.metadata.find(([k]) => k === 'solver')?.[1], 'jacobi');
    t.true(p.metadata.some(([, v]) => v === 'solver thread'), 'the thread name is in the metadata');
  };
  check(mainThread(linked));
  const ran = tmpDir('fmod-run');
  const h = await hyprof(['run', '--dir', ran, '--', exe]);
  t.is(h.code, 0, h.stderr);
  const p = mainThread(ran);
  check(p);
  const samples = p.events.filter((e) => e.name.startsWith('[SAMPLE] ') && !e.name.includes(' => '));
  const named = (fn: string) => samples.filter((e) => e.name.startsWith(`[SAMPLE] ${fn} [{`)).reduce((n, e) => n + e.calls, 0);
  t.true(named('kernels::relax') > 50, samples.map((e) => `${e.name} ${e.calls}`).join('\n'));
  t.true(named('heat') > 20, 'the main program is named by its PROGRAM statement');
  t.false(samples.some((e) => /__kernels_MOD_|MAIN__/.test(e.name)), 'no gfortran linkage name is left');
});

test.serial('OpenMP in a module procedure: the parallel region is named kernels::smooth', async (t) => {
  const why = missing();
  if (why) return t.fail(why);
  const exe = join(tmpDir('fomp'), 'fortran_omp');
  // In the output's directory: gfortran writes the program's own kernels.mod where it runs.
  const cc = spawnSync('gfortran', ['-fopenmp', '-O1', '-g', join(testNativeDir, 'fortran_omp.f90'), '-o', exe], { encoding: 'utf8', cwd: join(exe, '..') });
  t.is(cc.status, 0, cc.stderr);
  const dir = tmpDir('fomp-run');
  const r = await hyprof(['run', '--dir', dir, '--', exe], { env: { OMP_NUM_THREADS: '2' } });
  t.is(r.code, 0, r.stderr);
  const names = mainThread(dir).events.map((e) => displayName(e.name));
  const region = names.find((n) => n.startsWith('OpenMP_Parallel_Region '));
  t.regex(region ?? '', /^OpenMP_Parallel_Region kernels::smooth \[\{.*fortran_omp\.f90\} \{10, 0\}\]$/, names.join('\n'));
  t.is(calls(mainThread(dir), region ?? ''), 50);
  t.false(names.some((n) => n.includes('_MOD_')), 'no gfortran linkage name is left');
});

test.serial('an empty (blank) Fortran name is said once and ignored; the program runs on', async (t) => {
  const why = missing();
  if (why) return t.fail(why);
  const dir = tmpDir('fblank');
  const src = join(dir, 'blank.f90');
  writeFileSync(
    src,
    [
      'program blank',
      '  use hyprof',
      '  implicit none',
      '  integer :: p(2) = (/ 0, 0 /)',
      '  character(len=8) :: nothing = " "',
      '  save p',
      '  call hyprof_start_named(nothing)',
      '  call hyprof_stop_named("   ")',
      '  call TAU_PROFILE_TIMER(p, nothing)',
      '  call TAU_PROFILE_START(p)',
      '  call TAU_PROFILE_STOP(p)',
      "  print '(a)', 'still running'",
      'end program',
    ].join('\n'),
  );
  const exe = join(dir, 'blank');
  const args = ['-g', ...(await configWords('--fflags')), src, '-o', exe, ...(await configWords('--libs'))];
  const cc = spawnSync('gfortran', args, { encoding: 'utf8', cwd: dir });
  t.is(cc.status, 0, cc.stderr);
  const r = await run(exe, [], { env: { HYPROF_DIR: join(dir, 'prof') } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'still running');
  const said = r.stderr.split('\n').filter((l) => /the name is empty/.test(l));
  t.deepEqual(said, [
    'hyprof: hyprof_start_named: the name is empty (blank); ignored (said once for every Fortran routine)',
    'hyprof: TAU_PROFILE_TIMER: the name is empty (blank); ignored (said once for every TAU Fortran routine)',
  ]);
});

test('config --fflags: the directory of hyprof.mod, which gfortran finds with -I', async (t) => {
  const why = missing();
  if (why) return t.fail(why);
  t.deepEqual(await configWords('--fflags'), [`-I${join(libDir, 'fortran')}`]);
  t.true(existsSync(join(libDir, 'fortran', 'hyprof.mod')));
  t.deepEqual(await configWords('--fflags', '--libs'), [`-I${join(libDir, 'fortran')}`, `-L${libDir}`, `-Wl,-rpath,${libDir}`, '-lhyprof']);
});

test('config --fflags without a built module says why and how to build it', async (t) => {
  // A copy of the package whose build found no Fortran compiler: libhyprof.so, no fortran/.
  const pkg = tmpDir('cli-nofortran');
  cpSync(join(repoRoot, 'dist', 'src'), join(pkg, 'dist', 'src'), { recursive: true });
  cpSync(join(repoRoot, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(pkg, 'node_modules'));
  mkdirSync(join(pkg, 'build', 'Release'), { recursive: true });
  cpSync(libPath, join(pkg, 'build', 'Release', 'libhyprof.so'));
  const r = await run(process.execPath, [join(pkg, 'dist', 'src', 'cli', 'main.js'), 'config', '--fflags']);
  t.is(r.code, 1);
  t.is(
    r.stderr,
    `hyprof: --fflags: the Fortran module is not built (${join(pkg, 'build', 'Release', 'fortran', 'hyprof.mod')} is missing: no Fortran compiler was found when hyprof was built). ` +
      "Install gfortran (or set FC) and run 'npm rebuild hyprof'; TAU's Fortran API (tau_profile_timer, ...) needs only --libs\n",
  );
  t.is(r.stdout, '');
});
