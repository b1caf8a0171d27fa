/**
 * `npm install` of the packed package where there is no compiler: the prebuilt addon and
 * libhyprof.so (scripts/prebuild.sh, the package's prepack script, which `npm pack` runs) are used
 * and nothing is compiled. The tarball is packed with them, installed into a fresh project with a
 * PATH that has no cc, gcc, make or python3, and used there: a program built beforehand is run under `hyprof run`, runs on its own (resolving
 * at exit), and a Node program uses the API.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertConformant } from './helpers/conformance.js';
import { COMPILERS, pathWithout, toolsFound } from './helpers/hidden-path.js';
import { repoRoot, run, testNativeDir, tmpDir } from './helpers/native.js';

interface Installed {
  tarball: string;
  project: string;
  pkg: string;
  bin: string;
  path: string;
  installLog: string;
  installSeconds: number;
}

let installed: Promise<Installed> | undefined;

/** Run a command that must succeed; its standard output (with its standard error when `both`). */
function sh(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; both?: boolean } = {}): string {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? repoRoot, env: opts.env ?? process.env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return opts.both ? `${r.stdout}${r.stderr}` : r.stdout;
}

/** Prebuild, pack and install once for the whole file. */
function install(): Promise<Installed> {
  installed ??= (async () => {
    // The package's prepack script, which `npm pack` runs first: it builds the prebuilds
    // (scripts/prebuild.sh, in a copy of the sources). Then the pack itself, without its scripts:
    // prepare would rebuild dist/ in this checkout under the running suite, for minutes.
    const pkgJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    if (pkgJson.scripts.prepack !== 'sh scripts/prebuild.sh') throw new Error(`prepack is ${pkgJson.scripts.prepack}`);
    sh('npm', ['run', 'prepack']);
    const packDir = tmpDir('pack');
    const packOut = JSON.parse(sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir])) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packOut[0].files.map((f) => f.path);
    for (const f of ['hyprof.node', 'libhyprof.so'])
      if (!files.includes(`prebuilds/${process.platform}-${process.arch}/${f}`)) throw new Error(`npm pack left out the prebuilt ${f}:\n${files.join('\n')}`);
    const tarball = join(packDir, packOut[0].filename);
    const project = tmpDir('project');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-hyprof', version: '1.0.0', private: true }));
    const path = pathWithout(COMPILERS);
    const started = Date.now();
    // The dependencies come from npm's cache when they are there (the registry otherwise).
    const installLog = sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts', tarball], {
      cwd: project,
      env: { ...process.env, PATH: path },
      both: true,
    });
    const installSeconds = (Date.now() - started) / 1000;
    const pkg = join(project, 'node_modules', 'hyprof');
    return { tarball, project, pkg, bin: join(project, 'node_modules', '.bin', 'hyprof'), path, installLog, installSeconds };
  })();
  return installed;
}

test('the PATH of these tests has node and npm but no compiler, make or python3', async (t) => {
  const { path } = await install();
  t.deepEqual(toolsFound(path, ['cc', 'gcc', 'g++', 'c++', 'clang', 'make', 'python3', 'ld', 'mpicc', 'gfortran']), []);
  t.deepEqual(toolsFound(path, ['node', 'npm', 'sh']), ['node', 'npm', 'sh']);
});

test('npm install uses the prebuilt addon and runtime and compiles nothing', async (t) => {
  const { pkg, installLog, installSeconds } = await install();
  t.log(`npm install of the packed tarball with prebuilds: ${installSeconds.toFixed(1)} s`);
  t.false(existsSync(join(pkg, 'build')), `nothing was built from source:\n${installLog}`);
  t.deepEqual(readdirSync(join(pkg, 'prebuilds', `${process.platform}-${process.arch}`)).sort(), ['hyprof.node', 'libhyprof.so']);
  // The MPI layer is built at install only with an MPI compiler, and says so without one.
  t.regex(installLog, /hyprof: no MPI compiler \(mpicc\) found: the MPI layer \(libhyprof_mpi\.so\) is not built/);
  t.true(existsSync(join(pkg, 'LICENSE')));
});

test('hyprof config points at the prebuilt runtime', async (t) => {
  const { pkg, bin, path } = await install();
  const prebuilt = join(pkg, 'prebuilds', `${process.platform}-${process.arch}`);
  const r = await run(bin, ['config', '--libs'], { env: { PATH: path } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), `-L${prebuilt} -Wl,-rpath,${prebuilt} -lhyprof`);
  const p = await run(bin, ['config', '--preload'], { env: { PATH: path } });
  t.is(p.stdout.trim(), join(prebuilt, 'libhyprof.so'));
});

test('the installed package measures a program built beforehand: hyprof run, report, and resolve at exit', async (t) => {
  const { project, bin, path } = await install();
  // Built with the compiler (this machine's PATH), linked as a user would: with `hyprof config`.
  const flags = (args: string[]): string[] => sh(bin, ['config', ...args], { cwd: project }).trim().split(' ');
  const exe = join(project, 'nesting');
  sh('gcc', ['-O1', '-g', ...flags(['--cflags']), join(testNativeDir, 'core_nesting.c'), ...flags(['--libs']), '-o', exe]);

  const dir = join(project, 'prof-run');
  const r = await run(bin, ['run', '--dir', dir, '--', exe], { cwd: project, env: { PATH: path } });
  t.is(r.code, 0, r.stderr);
  assertConformant(dir);
  const rep = await run(bin, ['report', dir], { cwd: project, env: { PATH: path } });
  t.is(rep.code, 0, rep.stderr);
  t.regex(rep.stdout, /\bouter\b/);
  t.regex(rep.stdout, /\binner\b/);

  // On its own: the runtime (prebuilds/<platform>/libhyprof.so) finds the package's CLI and resolves.
  const alone = join(project, 'prof-alone');
  const a = await run(exe, [], { env: { PATH: path, HYPROF_DIR: alone } });
  t.is(a.code, 0, a.stderr);
  t.true(existsSync(join(alone, 'profile.0.0.0')), a.stderr);
  t.deepEqual(readdirSync(alone).filter((f) => f.endsWith('.raw')), []);
});

test('a Node program uses the API through the prebuilt addon', async (t) => {
  const { project, bin, path } = await install();
  const app = join(project, 'app.mjs');
  writeFileSync(
    app,
    "import { region } from 'hyprof';\nlet s = 0;\nregion('sumSquares', () => { for (let i = 0; i < 2e6; i++) s += i * i; });\nconsole.log(s > 0);\n",
  );
  const dir = join(project, 'prof-node');
  const r = await run(bin, ['run', '--dir', dir, '--', 'node', app], { cwd: project, env: { PATH: path } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'true');
  assertConformant(dir);
  const profile = readFileSync(join(dir, 'profile.0.0.0'), 'utf8');
  t.regex(profile, /^"sumSquares" 1 /m);
});

test('with an MPI compiler on the PATH the MPI layer is built at install, beside the prebuilt runtime', async (t) => {
  const { tarball } = await install();
  const project = tmpDir('project-mpi');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-hyprof-mpi', version: '1.0.0', private: true }));
  sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project });
  const pkg = join(project, 'node_modules', 'hyprof');
  const prebuilt = join(pkg, 'prebuilds', `${process.platform}-${process.arch}`);
  t.false(existsSync(join(pkg, 'build')), 'the runtime itself is not built from source');
  // With compilers on the PATH the install also builds the Fortran module beside the runtime.
  t.deepEqual(readdirSync(prebuilt).sort(), ['fortran', 'hyprof.node', 'libhyprof.so', 'libhyprof_mpi.so']);
  t.true(existsSync(join(prebuilt, 'fortran', 'hyprof.mod')));
  t.regex(sh('readelf', ['-d', join(prebuilt, 'libhyprof_mpi.so')]), /\(RUNPATH\)\s+Library runpath: \[\$ORIGIN\]/);
  const libs = sh(join(project, 'node_modules', '.bin', 'hyprof'), ['config', '--libs', '--mpi'], { cwd: project }).trim();
  t.is(libs, `-Wl,--no-as-needed -L${prebuilt} -Wl,-rpath,${prebuilt} -lhyprof_mpi -lhyprof`);
});
