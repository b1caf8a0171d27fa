/**
 * The C-only install: `make install PREFIX=...` builds libhyprof.so, the MPI layer, the OTF2 writer and the pkg-config
 * files without Node, and programs built with `pkg-config --cflags --libs hyprof` depend on nothing
 * but PREFIX. Run where node is not on the PATH, such a program says how to turn its measurements
 * into a profile; with the single executable installed beside (PREFIX/bin/hyprof) it does it itself.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { assertConformant } from './helpers/conformance.js';
import { NODE, pathWithout, toolsFound } from './helpers/hidden-path.js';
import { hyprof, repoRoot, run, testNativeDir, tmpDir } from './helpers/native.js';

/** Run a command that must succeed; its standard output and error. */
function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd: repoRoot, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return `${r.stdout}${r.stderr}`;
}

interface Installed {
  prefix: string;
  log: string;
  pkgEnv: NodeJS.ProcessEnv;
  exe: string;
  noNode: string;
}

let installed: Installed | undefined;

/** make install into a fresh PREFIX (its own build directory), and a program built with pkg-config. */
function install(): Installed {
  if (installed) return installed;
  const top = tmpDir('make');
  const prefix = join(top, 'prefix');
  // Node is not on make's PATH: the C-only route must not need it.
  const noNode = pathWithout(NODE);
  const log = sh('make', ['-j2', 'install', `PREFIX=${prefix}`, `BUILD=${join(top, 'build')}`, `SEA=${join(top, 'no-sea')}`], {
    ...process.env,
    PATH: noNode,
  });
  const pkgEnv = { ...process.env, PKG_CONFIG_PATH: join(prefix, 'lib', 'pkgconfig') };
  const flags = sh('pkg-config', ['--cflags', '--libs', 'hyprof'], pkgEnv).trim().split(/\s+/);
  const exe = join(top, 'nesting');
  sh('gcc', ['-O1', '-g', join(testNativeDir, 'core_nesting.c'), ...flags, '-o', exe]);
  installed = { prefix, log, pkgEnv, exe, noNode };
  return installed;
}

test('make install puts the library, headers, MPI layer, OTF2 writer and pkg-config files under PREFIX', (t) => {
  const { prefix, log, pkgEnv, noNode } = install();
  t.deepEqual(toolsFound(noNode, ['node', 'npm', 'npx']), []);
  // hyprof-otf2: the OTF2 library is installed with the rest (scripts/install-deps.sh)
  // The CUDA layer where CUDA with CUPTI is installed (scripts/build-cuda.sh), as the build says.
  const cuda = existsSync(join(process.env.CUDA_HOME ?? '/usr/local/cuda', 'include', 'cupti.h'));
  t.deepEqual(readdirSync(join(prefix, 'lib')).sort(), ['hyprof-otf2', 'libhyprof.so', ...(cuda ? ['libhyprof_cuda.so'] : []), 'libhyprof_mpi.so', 'pkgconfig']);
  if (cuda) {
    // it finds the installed runtime beside it, not the build's
    t.regex(sh('ldd', [join(prefix, 'lib', 'libhyprof_cuda.so')]), new RegExp(`libhyprof\\.so => ${join(prefix, 'lib', 'libhyprof.so').replace(/[/.]/g, '\\$&')}`));
  } else {
    t.regex(log, /the CUDA layer \(libhyprof_cuda\.so\) is not built/);
  }
  t.is(spawnSync(join(prefix, 'lib', 'hyprof-otf2'), ['--check']).status, 0, 'the installed OTF2 writer runs');
  t.deepEqual(readdirSync(join(prefix, 'lib', 'pkgconfig')).sort(), ['hyprof-mpi.pc', 'hyprof.pc']);
  // The per-rank launcher of MPI jobs; without the single executable beside it, nothing can write its
  // environment: one clear line.
  t.deepEqual(readdirSync(join(prefix, 'bin')), ['hyprof-exec']);
  const exec = spawnSync(join(prefix, 'bin', 'hyprof-exec'), ['true'], { encoding: 'utf8', env: { ...process.env, PATH: noNode } });
  t.is(exec.status, 1);
  t.regex(exec.stderr, /^hyprof: hyprof-exec: \S+\/lib\/hyprof-exec\.env is missing or older than the runtime, and only the hyprof command writes it: install the single executable beside \(scripts\/build-sea\.sh, then make install\), or use the npm package's hyprof-exec\n$/);
  const headers = readdirSync(join(prefix, 'include')).sort();
  t.deepEqual(headers.filter((h) => h !== 'hyprof.mod'), ['Profile', 'TAU.h', 'hyprof.h', 'hyprof.hpp', 'hyprof_tau_metadata.h']);
  t.deepEqual(readdirSync(join(prefix, 'include', 'Profile')), ['Profiler.h']);
  // The Fortran module, built from native/include/hyprof.f90 (gfortran is installed with the rest).
  t.true(headers.includes('hyprof.mod'), log);
  const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  t.is(sh('pkg-config', ['--modversion', 'hyprof'], pkgEnv).trim(), version);
  const lib = join(prefix, 'lib');
  t.is(sh('pkg-config', ['--libs', 'hyprof-mpi'], pkgEnv).trim(), `-Wl,--no-as-needed -L${lib} -Wl,-rpath,${lib} -lhyprof_mpi -lhyprof`);
  t.is(sh('pkg-config', ['--cflags', 'hyprof'], pkgEnv).trim(), `-I${join(prefix, 'include')}`);
});

test('a program built with pkg-config depends on PREFIX only', (t) => {
  const { prefix, exe } = install();
  const dynamic = sh('readelf', ['-d', exe]);
  t.regex(dynamic, /\(NEEDED\)\s+Shared library: \[libhyprof\.so\]/);
  t.regex(dynamic, new RegExp(`\\((?:RUNPATH|RPATH)\\)\\s+Library (?:runpath|rpath): \\[${join(prefix, 'lib').replace(/[/.]/g, '\\$&')}\\]`));
  t.false(dynamic.includes('node_modules'));
  t.false(dynamic.includes(repoRoot));
  t.regex(sh('ldd', [exe]), new RegExp(`libhyprof\\.so => ${join(prefix, 'lib', 'libhyprof.so').replace(/[/.]/g, '\\$&')}`));
});

test('without node the program writes its raw file and prints the command that resolves it', async (t) => {
  const { exe, noNode, prefix } = install();
  const dir = tmpDir('make-run');
  const r = await run(exe, [], { env: { PATH: noNode, HYPROF_DIR: dir } });
  t.is(r.code, 0, r.stderr);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1, r.stderr);
  const raw = join(dir, raws[0]);
  // The C-only install's command, not the npm package's npx.
  t.is(
    r.stderr,
    `hyprof: measurements written to ${raw}; turn them into a TAU profile with: hyprof resolve ${raw} -o ${dir} ` +
      `(hyprof: the single executable, built by scripts/build-sea.sh and installed as ${prefix}/bin/hyprof by make install, or the npm package's npx hyprof)\n`,
  );
  t.false(existsSync(join(dir, 'profile.0.0.0')));
  // Later, where hyprof's CLI is: the command printed works.
  const out = tmpDir('make-resolved');
  const res = await hyprof(['resolve', raw, '-o', out]);
  t.is(res.code, 0, res.stderr);
  assertConformant(out);
  const rep = await hyprof(['report', out]);
  t.regex(rep.stdout, /\bouter\b/);
  t.regex(rep.stdout, /\bIteration 1\b/);
});

test('with the single executable installed as PREFIX/bin/hyprof the program resolves at exit without node', async (t) => {
  const { prefix, exe, noNode } = install();
  const top = tmpDir('make-sea');
  sh('bash', ['scripts/build-sea.sh', top]);
  // A prefix of its own (a copy of the installed one), so the other tests see no bin/hyprof.
  const withSea = join(top, 'prefix');
  sh('cp', ['-R', prefix, withSea]);
  sh('install', ['-D', '-m', '755', join(top, 'hyprof'), join(withSea, 'bin', 'hyprof')]);
  const exe2 = join(top, 'nesting');
  copyFileSync(exe, exe2);
  const dir = tmpDir('make-sea-run');
  const r = await run(exe2, [], { env: { PATH: noNode, HYPROF_DIR: dir, LD_LIBRARY_PATH: join(withSea, 'lib') } });
  t.is(r.code, 0, r.stderr);
  t.true(existsSync(join(dir, 'profile.0.0.0')), r.stderr);
  t.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.raw')), []);
  assertConformant(dir);

  // The executable beside the runtime also runs programs (preloading PREFIX/lib/libhyprof.so) and
  // prints the flags of the install.
  const seaBin = join(withSea, 'bin', 'hyprof');
  const lib = join(withSea, 'lib');
  const c = await run(seaBin, ['config'], { env: { PATH: noNode } });
  t.is(c.stdout.trim(), `-I${join(withSea, 'include')} -L${lib} -Wl,-rpath,${lib} -lhyprof`, c.stderr);
  const runDir = tmpDir('make-sea-hyprof-run');
  const h = await run(seaBin, ['run', '--dir', runDir, '--', exe2], { env: { PATH: noNode } });
  t.is(h.code, 0, h.stderr);
  assertConformant(runDir);
  const prof = readFileSync(join(runDir, 'profile.0.0.0'), 'utf8');
  t.regex(prof, /^"outer" 3 /m);
  t.true(prof.includes('<attribute><name>HYPROF_SAMPLING</name><value>1</value></attribute>'), 'sampling on, as under hyprof run');

  // The per-rank launcher installed beside (docs/mpi.md): its environment written by the single
  // executable, the raw file in the node's subdirectory, then one resolve; no node anywhere.
  const execDir = tmpDir('make-sea-exec');
  const e = await run(join(withSea, 'bin', 'hyprof-exec'), ['--dir', execDir, exe2], { env: { PATH: noNode } });
  t.is(e.code, 0, e.stderr);
  t.true(readFileSync(join(lib, 'hyprof-exec.env'), 'utf8').includes(join(lib, 'libhyprof.so')), 'the environment preloads the installed runtime');
  t.is(readdirSync(join(execDir, '.hyprof-raw', hostname())).filter((f) => f.endsWith('.raw')).length, 1, e.stderr);
  const res = await run(seaBin, ['resolve', join(execDir, '.hyprof-raw'), '-o', execDir], { env: { PATH: noNode } });
  t.is(res.code, 0, res.stderr);
  assertConformant(execDir);
  t.regex(readFileSync(join(execDir, 'profile.0.0.0'), 'utf8'), /^"outer" 3 /m);
});
