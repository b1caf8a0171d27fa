/**
 * The compiler wrapper scripts (bin/hyprof-cc, hyprof-c++, hyprof-f90): what `hyprof cc|c++|f90`
 * adds to a compiler call, without Node, for make (`CC="$(npx hyprof config --wrapper cc)"`). The
 * same command line as `hyprof cc` (seen through a stand-in compiler that prints its arguments),
 * programs built and run with node gone from the PATH, and the select-file case handed to
 * `hyprof cc`. Their cost is measured in bench/cc-wrapper.ts, not asserted here.
 */
import test from 'ava';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE, pathWithout, toolsFound } from './helpers/hidden-path.js';
import { hyprof, repoRoot, run, testNativeDir, tmpDir } from './helpers/native.js';
import { mainThread } from './helpers/profile-queries.js';

const wrapper = (lang: string) => join(repoRoot, 'bin', `hyprof-${lang}`);

/** A stand-in compiler: prints its arguments, one per line. */
function echoCompiler(dir: string): string {
  const p = join(dir, 'echo-cc');
  writeFileSync(p, '#!/bin/sh\nfor a in "$@"; do echo "$a"; done\n');
  chmodSync(p, 0o755);
  return p;
}

test('config --wrapper prints the scripts; a bad name is said', async (t) => {
  for (const lang of ['cc', 'c++', 'f90']) {
    const r = await hyprof(['config', '--wrapper', lang]);
    t.is(r.stdout, `${wrapper(lang)}\n`, r.stderr);
  }
  const r = await hyprof(['config', '--wrapper', 'java']);
  t.is(r.code, 2);
  t.is(r.stderr, 'hyprof: --wrapper java: the wrappers are cc, c++ and f90\n');
});

test('the wrapper gives the compiler the command line hyprof cc gives it, compiling and linking', async (t) => {
  const dir = tmpDir('cc-wrapper-args');
  const env = { CC: echoCompiler(dir), CXX: echoCompiler(dir), FC: echoCompiler(dir) };
  for (const [lang, args] of [
    ['cc', ['-O2', '-c', 'a.c', '-o', 'a.o']],
    ['cc', ['a.o', 'b.o', '-o', 'app', '-lm']],
    ['c++', ['-O1', 'x.cc', '-o', 'x']],
    ['f90', ['-c', 'm.f90']],
  ] as const) {
    const viaNode = await hyprof([lang, ...args], { env });
    const viaScript = await run(wrapper(lang), [...args], { env: { ...env, PATH: pathWithout(NODE) } });
    t.is(viaScript.code, 0, viaScript.stderr);
    t.is(viaScript.stdout, viaNode.stdout, `${lang} ${args.join(' ')}`);
  }
});

test('a program built with the wrappers and no node on the PATH runs and writes its profile', async (t) => {
  const dir = tmpDir('cc-wrapper-build');
  const path = pathWithout(NODE);
  t.deepEqual(toolsFound(path, ['node']), []);
  const env = { PATH: path, CC: 'gcc' };
  for (const s of ['instr_app.c', 'instr_util.c']) {
    const c = await run(wrapper('cc'), ['-O1', '-c', join(testNativeDir, s), '-o', join(dir, s.replace('.c', '.o'))], { env });
    t.is(c.code, 0, c.stderr);
  }
  const l = await run(wrapper('cc'), [join(dir, 'instr_app.o'), join(dir, 'instr_util.o'), '-o', join(dir, 'app')], { env });
  t.is(l.code, 0, l.stderr);
  const out = join(dir, 'prof');
  const r = await run(join(dir, 'app'), ['3'], { env: { HYPROF_DIR: out } });
  t.is(r.code, 0, r.stderr);
  t.is(mainThread(out).events.find((e) => /^compute \[/.test(e.name))?.calls, 3);
});

test('with a select file the wrapper hands the call to hyprof cc (its file lists decide what is instrumented)', async (t) => {
  const dir = tmpDir('cc-wrapper-select');
  const sel = join(dir, 'select.tau');
  writeFileSync(sel, 'BEGIN_FILE_EXCLUDE_LIST\n*_util.c\nEND_FILE_EXCLUDE_LIST\n');
  const env = { CC: echoCompiler(dir), HYPROF_SELECT_FILE: sel };
  const args = ['-c', join(testNativeDir, 'instr_util.c')];
  const viaScript = await run(wrapper('cc'), args, { env });
  const viaNode = await hyprof(['cc', ...args], { env });
  t.is(viaScript.stdout, viaNode.stdout, `${viaScript.stderr}\n${viaNode.stderr}`);
  t.false(viaScript.stdout.includes('-finstrument-functions'), 'the excluded file is compiled uninstrumented');
  const missing = await run(wrapper('cc'), args, { env: { CC: join(dir, 'no-such-cc') } });
  t.is(missing.code, 1);
  t.regex(missing.stderr, /^hyprof: cannot run the compiler '.*no-such-cc' \(\$CC\): not found$/m);
});
