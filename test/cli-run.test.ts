/**
 * `hyprof run`: real programs under the preloaded runtime — exit status, signals, missing programs,
 * unwritable output, programs that die before they can write their measurements.
 */
import test from 'ava';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compileC, hyprof, libPath, run, tmpDir } from './helpers/native.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { displayName } from '../src/profile/tau-model.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

/** A program that is not linked against hyprof: everything comes from the preloaded runtime. */
const PROGRAM = `
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;
static void spin(long n) { double s = 0; for (long i = 1; i <= n; i++) s += 1.0 / (double)i; sink = s; }
static void *worker(void *arg) { spin((long)arg); return NULL; }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  if (!strcmp(mode, "exit3")) { spin(1000000); return 3; }
  if (!strcmp(mode, "threads")) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)2000000L);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    return 0;
  }
  if (!strcmp(mode, "kill")) { spin(1000000); raise(SIGKILL); }
  if (!strcmp(mode, "wait")) {
    printf("ready\\n");
    fflush(stdout);
    for (int i = 0; i < 6000; i++) { spin(100000); usleep(1000); }
    return 0;
  }
  if (!strcmp(mode, "env")) {
    const char *names[] = {"HYPROF_SAMPLING", "HYPROF_RESOLVE", "HYPROF_RUN_PARENT", "HYPROF_PERIOD_US", "LD_PRELOAD", "HYPROF_RAW_DIR"};
    for (int i = 0; i < 6; i++) printf("%s=%s\\n", names[i], getenv(names[i]) ? getenv(names[i]) : "(unset)");
    return 0;
  }
  spin(20000000);
  return 0;
}
`;

let program = '';
test.before(() => {
  const dir = tmpDir('cli-run-src');
  writeFileSync(join(dir, 'app.c'), PROGRAM);
  program = compileC('app', [join(dir, 'app.c')], { link: false, cflags: ['-O1', '-g'], outDir: dir });
});

function profileFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => /^profile\.\d+\.\d+\.\d+$/.test(f)) : [];
}

function requireRuntime(t: { fail: (m: string) => void }): boolean {
  if (existsSync(libPath)) return true;
  t.fail(`the native runtime is not built: ${libPath}`);
  return false;
}

test('a missing program: exit 127; a file that is not executable: 126; one line each', async (t) => {
  if (!requireRuntime(t)) return;
  const dir = tmpDir('cli-run-missing');
  for (const name of ['/nonexistent/xyz', 'hyprof-no-such-command-xyz']) {
    const r = await hyprof(['run', '--dir', dir, '--', name, 'arg']);
    t.is(r.code, 127, r.stderr);
    t.is(r.stderr, `hyprof: cannot run '${name}': no such file or command\n`);
  }
  t.deepEqual(profileFiles(dir), []);
  const notExecutable = join(dir, 'data.txt');
  writeFileSync(notExecutable, 'not a program\n', { mode: 0o644 });
  const r = await hyprof(['run', '--dir', dir, '--', notExecutable]);
  t.is(r.code, 126);
  t.is(r.stderr, `hyprof: cannot run '${notExecutable}': permission denied (is it executable?)\n`);
});

test('the program runs, its profile is written and the line says where', async (t) => {
  if (!requireRuntime(t)) return;
  const dir = tmpDir('cli-run-ok');
  const r = await hyprof(['run', '--dir', dir, '--', program, 'ok']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, new RegExp(`hyprof: profile of 1 thread written to ${dir}/ \\(profile\\.0\\.0\\.\\*\\)\\n$`));
  t.deepEqual(profileFiles(dir), ['profile.0.0.0']);
  const names = readTauProfileDir(dir).threads[0][0].events.map((e) => displayName(e.name));
  t.true(names.includes('.TAU application'));
  t.true(names.some((n) => n.startsWith('[SAMPLE] spin')), names.join('\n'));
});

test('threads are counted in the summary line', async (t) => {
  if (!requireRuntime(t)) return;
  const dir = tmpDir('cli-run-threads');
  const r = await hyprof(['run', '--dir', dir, '--', program, 'threads']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /hyprof: profile of 3 threads written to .* \(profile\.0\.0\.\*\)\n$/);
  t.is(profileFiles(dir).length, 3);
});

test('the exit status of the program is hyprof\'s', async (t) => {
  if (!requireRuntime(t)) return;
  const dir = tmpDir('cli-run-exit3');
  const r = await hyprof(['run', '--dir', dir, '--', program, 'exit3']);
  t.is(r.code, 3, r.stderr);
  t.regex(r.stderr, /hyprof: program exited with status 3; profile of 1 thread written to /);
  t.deepEqual(profileFiles(dir), ['profile.0.0.0']);
});

/** Run the waiting program under hyprof and send hyprof `signal` once the program is running. */
async function signalled(dir: string, signal: NodeJS.Signals) {
  let sent = false;
  const r = await hyprof(['run', '--dir', dir, '--', program, 'wait'], {
    onSpawn: (child) => {
      child.stdout!.on('data', (d: Buffer) => {
        if (!sent && d.toString().includes('ready')) {
          sent = true;
          // Let it take some samples first.
          setTimeout(() => child.kill(signal), 300);
        }
      });
    },
  });
  return { ...r, sent };
}

for (const [signal, status] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
  test(`${signal} sent to hyprof reaches the program, whose profile is still written`, async (t) => {
    if (!requireRuntime(t)) return;
    const dir = tmpDir('cli-run-term');
    const r = await signalled(dir, signal);
    t.true(r.sent);
    // hyprof did not die of the signal: it waited, resolved and exited with 128 + the signal.
    t.is(r.signal, null);
    t.is(r.code, status, r.stderr);
    t.regex(r.stderr, new RegExp(`hyprof: program killed by ${signal}; profile of 1 thread written to `));
    t.deepEqual(profileFiles(dir), ['profile.0.0.0']);
  });
}

test('SIGUSR1 is forwarded too: the program dies of it, and hyprof says so', async (t) => {
  if (!requireRuntime(t)) return;
  const dir = tmpDir('cli-run-usr1');
  const r = await signalled(dir, 'SIGUSR1');
  t.true(r.sent);
  t.is(r.signal, null);
  t.is(r.code, 138, r.stderr);
  t.is(r.stderr, 'hyprof: program killed by SIGUSR1: it could not write its measurements; no profile\n');
});

test('a program killed by SIGKILL: no profile, and the message says why', async (t) => {
  if (!requireRuntime(t)) return;
  const dir = tmpDir('cli-run-kill');
  const r = await hyprof(['run', '--dir', dir, '--', program, 'kill']);
  t.is(r.code, 137);
  t.is(r.stderr, 'hyprof: program killed by SIGKILL: it could not write its measurements; no profile\n');
  t.deepEqual(profileFiles(dir), []);
});

test('an unwritable output directory: message, non-zero, raw files kept and resolvable later', async (t) => {
  if (!requireRuntime(t)) return;
  const base = tmpDir('cli-run-unwritable');
  const file = join(base, 'a-file');
  writeFileSync(file, 'not a directory\n');
  const r = await hyprof(['run', '--dir', join(file, 'prof'), '--', program, 'ok']);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, new RegExp(`^hyprof: cannot create the output directory ${file}/prof: ${file} is not a directory\\n`));
  const kept = /the raw measurements are kept in (\S+);/.exec(r.stderr);
  t.truthy(kept, r.stderr);
  const rawDir = kept![1].replace(/;$/, '');
  const raws = readdirSync(rawDir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1);
  // The kept measurements make the profile once the problem is fixed.
  const out = join(base, 'prof');
  const again = await hyprof(['resolve', rawDir, '-o', out]);
  t.is(again.code, 0, again.stderr);
  t.deepEqual(profileFiles(out), ['profile.0.0.0']);
  rmSync(rawDir, { recursive: true, force: true });

  const existing = await hyprof(['run', '--dir', file, '--', program, 'ok']);
  t.is(existing.code, 1);
  t.regex(existing.stderr, new RegExp(`^hyprof: cannot write the profile to ${file}: it exists and is not a directory\\n`));
  const kept2 = /kept in (\S+);/.exec(existing.stderr);
  if (kept2) rmSync(kept2[1], { recursive: true, force: true });
});

test('the environment of the program: preload appended, sampling on, the CLI resolves', async (t) => {
  if (!requireRuntime(t)) return;
  const dir = tmpDir('cli-run-env');
  const env = (out: string) => Object.fromEntries(out.trim().split('\n').map((l) => l.split(/=(.*)/s).slice(0, 2)));
  const r = await hyprof(['run', '--dir', dir, '--period', '2000', '--', program, 'env'], { env: { LD_PRELOAD: 'libm.so.6' } });
  t.is(r.code, 0, r.stderr);
  const e = env(r.stdout);
  t.is(e.HYPROF_SAMPLING, '1');
  t.is(e.HYPROF_RESOLVE, '0');
  t.is(e.HYPROF_PERIOD_US, '2000');
  // The MPI layer follows the runtime when it was built (it is inert in programs without MPI).
  const mpiLib = join(dirname(libPath), 'libhyprof_mpi.so');
  t.is(e.LD_PRELOAD, `libm.so.6:${libPath}${existsSync(mpiLib) ? `:${mpiLib}` : ''}`);
  t.regex(e.HYPROF_RUN_PARENT, /^\d+$/);
  // The temporary raw directory is removed after a successful resolve.
  t.false(existsSync(e.HYPROF_RAW_DIR));

  const off = env((await hyprof(['run', '--dir', dir, '--no-sampling', '--', program, 'env'])).stdout);
  t.is(off.HYPROF_SAMPLING, '0');
  const tau = env((await hyprof(['run', '--dir', dir, '--', program, 'env'], { env: { TAU_SAMPLING: '0' } })).stdout);
  t.is(tau.HYPROF_SAMPLING, '(unset)', 'TAU_SAMPLING set by the user is left to decide');
});

test('--keep-raw keeps the raw files and prints where', async (t) => {
  if (!requireRuntime(t)) return;
  const dir = tmpDir('cli-run-keep');
  const r = await hyprof(['run', '--dir', dir, '--keep-raw', '--', program, 'ok']);
  t.is(r.code, 0, r.stderr);
  const kept = /hyprof: raw measurements kept in (\S+)\n/.exec(r.stderr);
  t.truthy(kept, r.stderr);
  t.is(readdirSync(kept![1]).filter((f) => f.endsWith('.raw')).length, 1);
  rmSync(kept![1], { recursive: true, force: true });
});

test('options after the program belong to the program', async (t) => {
  if (!requireRuntime(t)) return;
  const dir = tmpDir('cli-run-passthrough');
  const r = await hyprof(['run', '--dir', dir, '/bin/echo', '--keep-raw', '-n', 'x']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, '--keep-raw -n x\n');
});

test('without --dir the profile goes to HYPROF_DIR, else PROFILEDIR, else the current directory', async (t) => {
  if (!requireRuntime(t)) return;
  const base = tmpDir('cli-run-envdir');
  const hy = join(base, 'hy');
  const tau = join(base, 'tau');
  const r1 = await hyprof(['run', '--', program, 'ok'], { env: { HYPROF_DIR: hy, PROFILEDIR: tau } });
  t.is(r1.code, 0, r1.stderr);
  t.deepEqual(profileFiles(hy), ['profile.0.0.0']);
  t.deepEqual(profileFiles(tau), []);
  const r2 = await hyprof(['run', '--', program, 'ok'], { env: { HYPROF_DIR: undefined, PROFILEDIR: tau } });
  t.is(r2.code, 0, r2.stderr);
  t.deepEqual(profileFiles(tau), ['profile.0.0.0']);
  const cwd = join(base, 'cwd');
  mkdirSync(cwd);
  const r3 = await hyprof(['run', '--', program, 'ok'], { cwd, env: { HYPROF_DIR: undefined, PROFILEDIR: undefined } });
  t.is(r3.code, 0, r3.stderr);
  t.regex(r3.stderr, /written to \.\/ \(profile\.0\.0\.\*\)\n$/);
  t.deepEqual(profileFiles(cwd), ['profile.0.0.0']);
});

test('misuse warnings are printed once, by the program, under hyprof run and linked alone; the profile keeps them', async (t) => {
  if (!requireRuntime(t)) return;
  const exe = compileC('core_misuse', ['core_misuse.c']);
  const warnings = [
    "hyprof: stop of 'never started' while no timer is running on thread 0; ignored\n",
    "hyprof: parameter 'size' set while no timer is running on thread 0; ignored\n",
    "hyprof: stop of 'A' while 'B', started inside it, is still running on thread 0; 'B' is stopped too\n",
    "hyprof: stop of 'D', which is not running on thread 0 (innermost running: 'C'); ignored\n",
  ];
  const underRun = tmpDir('cli-run-misuse');
  const alone = tmpDir('cli-run-misuse-alone');
  const results = [
    { dir: underRun, r: await hyprof(['run', '--dir', underRun, '--', exe]) },
    { dir: alone, r: await run(exe, [], { env: { HYPROF_DIR: alone, HYPROF_RAW_DIR: undefined, HYPROF_RESOLVE: undefined } }) },
  ];
  for (const { dir, r } of results) {
    t.is(r.code, 0, r.stderr);
    for (const w of warnings) t.is(r.stderr.split(w).length - 1, 1, `once: ${w}${r.stderr}`);
    t.notRegex(r.stderr, /\.raw/, 'no raw file is named');
    const meta = new Map(readTauProfileDir(dir).threads[0][0].metadata);
    t.is(meta.get('hyprof warning 3'), warnings[2].replace(/^hyprof: /, '').trim());
    t.true(readWithTau(dir).ok, tauReaderComplaints(readWithTau(dir)));
  }
});
