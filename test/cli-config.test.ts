/** `hyprof config`: flags that really build a program against the runtime. */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hyprof, includeDir, libDir, libPath, repoRoot, run, tmpDir } from './helpers/native.js';
import { displayName } from '../src/profile/tau-model.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

test('--cflags, --libs, --include-dir, --lib-dir and --preload', async (t) => {
  if (!existsSync(libPath)) return t.fail(`the native runtime is not built: ${libPath}`);
  t.is((await hyprof(['config', '--cflags'])).stdout, `-I${includeDir}\n`);
  t.is((await hyprof(['config', '--libs'])).stdout, `-L${libDir} -Wl,-rpath,${libDir} -lhyprof\n`);
  t.is((await hyprof(['config'])).stdout, `-I${includeDir} -L${libDir} -Wl,-rpath,${libDir} -lhyprof\n`);
  t.is((await hyprof(['config', '--include-dir'])).stdout, `${includeDir}\n`);
  t.is((await hyprof(['config', '--lib-dir'])).stdout, `${libDir}\n`);
  t.is((await hyprof(['config', '--preload'])).stdout, `${libPath}\n`);
  for (const h of ['hyprof.h', 'hyprof.hpp', 'TAU.h']) t.true(existsSync(join(includeDir, h)), h);
});

const PROGRAM = `
#include <hyprof.h>
#include <TAU.h>
#include <stdio.h>

static double work(int n) { double s = 0; for (int i = 1; i <= n; i++) s += 1.0 / i; return s; }

int main(void) {
  TAU_PROFILE_TIMER(t, "outer", "", TAU_USER);
  TAU_PROFILE_START(t);
  hyprof_event_t e = hyprof_event("inner", NULL);
  double s = 0;
  for (int i = 0; i < 3; i++) { hyprof_start(e); s += work(100000); hyprof_stop(e); }
  TAU_PROFILE_STOP(t);
  printf("%.3f\\n", s);
  return 0;
}
`;

test('a C program using hyprof.h and TAU.h builds with the printed flags, runs and leaves a profile', async (t) => {
  if (!existsSync(libPath)) return t.fail(`the native runtime is not built: ${libPath}`);
  const dir = tmpDir('cli-config');
  const src = join(dir, 'app.c');
  writeFileSync(src, PROGRAM);
  const cflags = (await hyprof(['config', '--cflags'])).stdout.trim().split(' ');
  const libs = (await hyprof(['config', '--libs'])).stdout.trim().split(' ');
  const cc = spawnSync('gcc', ['-O1', '-g', ...cflags, src, '-o', join(dir, 'app'), ...libs], { encoding: 'utf8' });
  t.is(cc.status, 0, cc.stderr);
  const out = join(dir, 'prof');
  const r = await run(join(dir, 'app'), [], { env: { HYPROF_DIR: out, LD_LIBRARY_PATH: undefined } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), String((3 * [...Array(100000)].reduce((s: number, _x, i) => s + 1 / (i + 1), 0)).toFixed(3)));
  const [thread] = readTauProfileDir(out).threads[0];
  const names = thread.events.map((e) => displayName(e.name));
  t.true(names.includes('outer'), names.join(', '));
  t.is(thread.events.find((e) => displayName(e.name) === 'inner')?.calls, 3);
});

test('an install without the native build says how to build it', async (t) => {
  // A copy of the package without build/: what a user has when the install step's node-gyp failed.
  const pkg = tmpDir('cli-nobuild');
  cpSync(join(repoRoot, 'dist', 'src'), join(pkg, 'dist', 'src'), { recursive: true });
  cpSync(join(repoRoot, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(pkg, 'node_modules'));
  for (const args of [['config', '--cflags'], ['run', '--', 'true']]) {
    const r = await run(process.execPath, [join(pkg, 'dist', 'src', 'cli', 'main.js'), ...args]);
    t.is(r.code, 1, args.join(' '));
    t.is(
      r.stderr,
      `hyprof: the native runtime is not built (${join(pkg, 'build', 'Release', 'libhyprof.so')} is missing): run 'npm rebuild hyprof', or 'npx node-gyp rebuild' in ${pkg}\n`,
    );
  }
});
