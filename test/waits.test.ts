/**
 * The measured program's waits behave as without hyprof (native/sample/waits.c, docs/sampling.md
 * "Waits"): real programs in C, Fortran (gfortran) and OpenMP (clang, LLVM's libomp) print what each
 * wait returned, errno after it and whether it waited its whole time; run plain, under `hyprof run`
 * (the runtime preloaded) and linked with -lhyprof, sampling at 10 kHz, their lines must be the same.
 * In `full` mode every wait runs its time out (the sampling signal must not end it early); in
 * `program` mode the program's own SIGALRM / SIGUSR1 ends each wait early, with EINTR, as without
 * hyprof. The plain run's lines are checked too, so that a broken program cannot make the
 * comparison pass.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, haveTool, hyprof, libDir, libPath, run, testNativeDir, tmpDir } from './helpers/native.js';
import { runSampled } from './sampling-support.js';

const sampled = { HYPROF_PERIOD_US: '100' };

/** stdout of the program plain, under `hyprof run`, and linked (when given) with sampling on; the
 * linked run's samples are counted, so the comparison is known to have run under sampling. */
async function threeWays(plainExe: string, linkedExe: string | null, args: string[], env: Record<string, string> = {}) {
  const plain = await run(plainExe, args, { env });
  if (plain.code !== 0) throw new Error(`${plainExe} ${args.join(' ')} exited ${plain.code}: ${plain.stderr}`);
  const dir = tmpDir('waits-run');
  const underRun = await hyprof(['run', '--dir', dir, '--', plainExe, ...args], { env: { ...env, ...sampled } });
  let linked: { stdout: string; code: number | null; stderr: string; samples: number } | null = null;
  if (linkedExe) {
    const l = await runSampled(linkedExe, args, { ...env, ...sampled });
    const samples = l.raws.flatMap((p) => p.threads).reduce((k, th) => k + th.samples.reduce((m, s) => m + s.count, 0), 0);
    linked = { stdout: l.result.stdout, code: l.result.code, stderr: l.result.stderr, samples };
  }
  return { plain, underRun, linked };
}

function compare(t: import('ava').ExecutionContext, r: Awaited<ReturnType<typeof threeWays>>) {
  t.is(r.underRun.code, 0, r.underRun.stderr);
  t.is(r.underRun.stdout, r.plain.stdout, `under hyprof run:\n${r.underRun.stderr}`);
  if (r.linked) {
    t.is(r.linked.code, 0, r.linked.stderr);
    t.is(r.linked.stdout, r.plain.stdout, `linked:\n${r.linked.stderr}`);
    t.true(r.linked.samples >= 100, `only ${r.linked.samples} samples were taken`);
  }
}

function lines(s: string): string[] {
  return s.trim().split('\n');
}

const cProgram = (() => {
  let built: { plain: string; linked: string } | null = null;
  return () => {
    built ??= {
      plain: compileC('waits', ['waits.c'], { link: false }),
      linked: compileC('waits_linked', ['waits.c']),
    };
    return built;
  };
})();

test('C: every wait runs its whole time and returns what it returns without hyprof, under 10 kHz sampling', async (t) => {
  const exe = cProgram();
  const r = await threeWays(exe.plain, exe.linked, ['full', join(tmpDir('waits-sock'), 's')]);
  const plain = lines(r.plain.stdout);
  // the baseline: each call waited its time out, with its own result
  t.true(plain.length >= 27, r.plain.stdout);
  for (const l of plain) if (/ ret=/.test(l)) t.regex(l, /waited=full$/);
  t.true(plain.includes('sleep ret=0 errno=unchanged waited=full'));
  t.true(plain.includes('nanosleep ret=0 errno=unchanged waited=full'));
  t.true(plain.includes('poll ret=0 errno=unchanged waited=full'));
  t.true(plain.includes('sem_timedwait ret=-1 errno=ETIMEDOUT waited=full'));
  t.true(plain.includes('sigtimedwait ret=-1 errno=EAGAIN waited=full'));
  t.true(plain.includes('pause ret=-1 errno=EINTR waited=full'));
  t.true(plain.includes("sigaction reads back the program's handler"));
  t.true(plain.includes("signal returns the program's handler"));
  t.true(plain.includes('SA_RESETHAND: handler ran yes, then SIG_DFL'));
  compare(t, r);
});

test("C: the program's own SIGALRM and SIGUSR1 still end each wait early with EINTR, under 10 kHz sampling", async (t) => {
  const exe = cProgram();
  const r = await threeWays(exe.plain, exe.linked, ['program', join(tmpDir('waits-sock'), 's')]);
  const plain = lines(r.plain.stdout);
  t.true(plain.length >= 43, r.plain.stdout);
  t.true(plain.includes('sleep ret=1 errno=EINTR waited=short'));
  t.true(plain.includes('nanosleep ret=-1 errno=EINTR waited=short'));
  t.true(plain.includes('nanosleep rem ok'));
  t.true(plain.includes('clock_nanosleep-monotonic ret=4 errno=unchanged waited=short'));   // EINTR, returned
  t.true(plain.includes('epoll_wait ret=-1 errno=EINTR waited=short'));
  compare(t, r);
});

function fortranMissing(): string | null {
  if (!existsSync(libPath)) return `the native runtime is not built: ${libPath}`;
  if (!haveTool('gfortran')) return 'gfortran is not installed (scripts/install-deps.sh installs it)';
  return null;
}

function gfortran(name: string, linked: boolean): string {
  const out = join(tmpDir(`waits-${name}`), name);
  const args = ['-O1', '-g', join(testNativeDir, 'waits.f90'), '-o', out];
  if (linked) args.push(`-L${libDir}`, `-Wl,-rpath,${libDir}`, '-lhyprof');
  const r = spawnSync('gfortran', args, { encoding: 'utf8', cwd: join(out, '..') });
  if (r.status !== 0) throw new Error(`gfortran ${args.join(' ')} failed:\n${r.stderr}`);
  return out;
}

test("Fortran: SLEEP and nanosleep through C interoperability wait their whole time; the program's SIGALRM still ends them", async (t) => {
  const why = fortranMissing();
  if (why) return t.fail(why);
  const plain = gfortran('waits_f', false);
  const linked = gfortran('waits_f_linked', true);
  const full = await threeWays(plain, linked, ['full']);
  t.deepEqual(lines(full.plain.stdout), ['sleep waited=full', 'nanosleep ret=0 waited=full']);
  compare(t, full);
  const own = await threeWays(plain, linked, ['program']);
  t.deepEqual(lines(own.plain.stdout), ['sleep waited=short', 'nanosleep ret=-1 waited=short rem>1s=T']);
  compare(t, own);
});

test('OpenMP (libomp): threads that sleep, as in TAU\'s throttling example, wait their whole time; SIGUSR1 still ends their waits', async (t) => {
  if (!haveTool('clang')) return t.fail('clang is not installed (scripts/install-deps.sh installs it)');
  const plain = compileC('omp_waits', ['omp_waits.c'], { cc: 'clang', link: false, cflags: ['-O1', '-g', '-fopenmp'], ldflags: ['-fopenmp'] });
  const linked = compileC('omp_waits_linked', ['omp_waits.c'], { cc: 'clang', cflags: ['-O1', '-g', '-fopenmp'], ldflags: ['-fopenmp'] });
  t.regex(spawnSync('ldd', [plain], { encoding: 'utf8' }).stdout, /libomp\.so/);
  const env = { OMP_NUM_THREADS: '4' };
  const full = await threeWays(plain, linked, ['full'], env);
  const fl = lines(full.plain.stdout);
  t.is(fl.length, 12);
  t.true(fl.includes('thread 1 sleep ret=0 waited=full') && fl.includes('thread 3 sleep ret=0 waited=full'));
  t.is(fl.filter((l) => /(nanosleep|poll) ret=0 waited=full$/.test(l)).length, 8);
  compare(t, full);
  const own = await threeWays(plain, linked, ['program'], env);
  t.deepEqual(lines(own.plain.stdout), [0, 1, 2, 3].map((i) => `thread ${i} nanosleep ret=-1 errno=EINTR waited=short`));
  compare(t, own);
});
