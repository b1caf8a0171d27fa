/**
 * Test helpers shared by every test: compile real C programs against the runtime, run them, run the
 * hyprof command. Nothing here fakes a part: programs are built by gcc / clang and run for real.
 *
 * Every profile a run writes passes the conformance check (conformance.ts) before the test sees it:
 * `hyprof run` / `hyprof resolve` into their output directory, and a linked program that resolved
 * its own profile at exit into HYPROF_DIR / PROFILEDIR. A test that produces a profile another way
 * calls assertConformant itself (helpers/resolve.ts does for in-process resolves).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { assertConformant, holdsProfile } from './conformance.js';
import { repoRoot } from './paths.js';

export { repoRoot };
export const includeDir = join(repoRoot, 'native', 'include');
export const libDir = join(repoRoot, 'build', 'Release');
export const libPath = join(libDir, 'libhyprof.so');
export const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
export const testNativeDir = join(repoRoot, 'test', 'native');

/** The C sources binding.gyp builds the runtime from: every .c of native/ but the addon's, the MPI
 * layer's, the CUDA layer's and the OTF2 writer's and reader's (the core,
 * each module, and native/modules.c, their list), for programs that compile the runtime in. */
export function runtimeSources(): string[] {
  return (readdirSync(join(repoRoot, 'native'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.c') && !f.startsWith('addon') && !f.startsWith('mpi') && !f.startsWith('cuda') && !f.startsWith('otf2'))
    .sort()
    .map((f) => join(repoRoot, 'native', f));
}

/**
 * The runtime's sources compiled once per set of compiler flags into an archive, which test programs
 * built with the same flags link whole (the sanitizer tests built the ~60 sources again for each of
 * a dozen programs, minutes of the suite). Keyed by the flags and the contents of native/, so an
 * edit makes a new one; kept under the temporary directory, written under a name of its own and
 * renamed, so that two runs never read a half-written archive.
 */
export function runtimeArchive(cflags: string[]): string {
  const native = join(repoRoot, 'native');
  const hash = createHash('sha256').update(JSON.stringify(cflags));
  for (const f of (readdirSync(native, { recursive: true }) as string[]).filter((x) => /\.[ch]$/.test(x)).sort()) {
    hash.update(f).update(readFileSync(join(native, f)));
  }
  const key = hash.digest('hex').slice(0, 20);
  const dir = join(tmpdir(), 'hyprof-runtime-archives');
  const lib = join(dir, `libhyprof-${key}.a`);
  if (existsSync(lib)) return lib;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, `build-${key}-`));
  try {
    const sources = runtimeSources();
    const objects = sources.map((_, i) => join(work, `${i}.o`));
    // Two compilers at a time (xargs -P 2, the suite's machines have two cores), through a script
    // that holds the flags, each quoted for the shell.
    const quote = (x: string) => `'${x.replace(/'/g, `'\\''`)}'`;
    const script = join(work, 'cc.sh');
    writeFileSync(script, `#!/bin/sh\nexec gcc ${[...cflags, `-I${includeDir}`].map(quote).join(' ')} -c "$1" -o "$2"\n`, { mode: 0o755 });
    const list = sources.map((src, i) => `${quote(src)} ${quote(objects[i])}`).join('\n');
    const r = spawnSync('xargs', ['-P', '2', '-n', '2', script], { input: list, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`compiling the runtime with ${cflags.join(' ')} failed:\n${r.stderr}`);
    const tmpLib = join(work, 'lib.a');
    const ar = spawnSync('ar', ['rcs', tmpLib, ...objects], { encoding: 'utf8' });
    if (ar.status !== 0) throw new Error(`ar failed: ${ar.stderr}`);
    renameSync(tmpLib, lib);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return lib;
}

/** A test program with the runtime compiled in (runtimeArchive's, linked whole), built with gcc and `cflags`. */
export function compileWithRuntime(name: string, sources: string[], cflags: string[], ldflags: string[] = []): string {
  const lib = runtimeArchive(cflags);
  return compileC(name, sources, { link: false, cflags, ldflags: ['-Wl,--whole-archive', lib, '-Wl,--no-whole-archive', ...ldflags] });
}

export function tmpDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `hyprof-${prefix}-`));
}

/** True when `tool` is on the PATH. */
export function haveTool(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}

export interface CompileOptions {
  cc?: string;
  /** Extra flags (before sources). Default -O1 -g. */
  cflags?: string[];
  /** Link against libhyprof.so (with rpath). Default true. */
  link?: boolean;
  /** Extra libraries / flags after the sources. */
  ldflags?: string[];
  /** Output directory; default a fresh temporary one. */
  outDir?: string;
}

/**
 * Programs this test process has built, by compiler, arguments and the sources' contents: several
 * tests of a file build the same source with the same flags under different names (one compile of a
 * dozen in fold.test.ts, three in core-probes.test.ts), and the compiler gives the same program for
 * the same input, whatever the output is called. Per process (one test file) only, so that nothing
 * outlives the file that built it; each caller still gets a copy of its own, under its own name.
 */
const built = new Map<string, string>();

/** The key of a compile: the compiler, its arguments but the output, and every source's contents. */
function compileKey(cc: string, args: string[], sources: string[]): string {
  const hash = createHash('sha256').update(JSON.stringify([cc, args]));
  for (const s of sources) hash.update(s).update(readFileSync(s));
  return hash.digest('hex');
}

/**
 * Compile C sources (paths relative to test/native/ unless absolute) into an executable; returns its
 * path. Throws with the compiler's output on failure. A program built before in this process from
 * the same sources and arguments is copied instead of compiled again (`built`).
 */
export function compileC(name: string, sources: string[], opts: CompileOptions = {}): string {
  const cc = opts.cc ?? 'gcc';
  const out = join(opts.outDir ?? tmpDir(`cc-${name}`), name);
  const srcs = sources.map((s) => (s.startsWith('/') ? s : join(testNativeDir, s)));
  const link = opts.link ?? true;
  const flags = [...(opts.cflags ?? ['-O1', '-g']), `-I${includeDir}`, ...srcs];
  const libs = [...(link ? [`-L${libDir}`, `-Wl,-rpath,${libDir}`, '-lhyprof'] : []), '-lpthread', ...(opts.ldflags ?? [])];
  const key = compileKey(cc, [...flags, ...libs], srcs);
  const earlier = built.get(key);
  if (earlier && existsSync(earlier)) {
    rmSync(out, { force: true }); // as the linker does: a new file, never one written in place
    copyFileSync(earlier, out); // keeps the mode: executable
    return out;
  }
  const args = [...flags, '-o', out, ...libs];
  const r = spawnSync(cc, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cc} ${args.join(' ')} failed:\n${r.stderr}`);
  // The copy kept is one of this process's own, which no test writes to or removes.
  const kept = join(tmpDir(`cc-built-${name}`), name);
  copyFileSync(out, kept);
  built.set(key, kept);
  return out;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
  /** Called with the child once started (to send it signals). */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
}

/** Run a program; resolves when it exits (killed after timeoutMs, default 120 s). A profile it
 * resolved at exit (HYPROF_DIR / PROFILEDIR, resolution not turned off) is checked for conformance;
 * so is the output of `hyprof run` / `hyprof resolve` started another way than hyprof() (with node's
 * own flags, under mpirun or a shell): wherever the built CLI is among the arguments. */
export async function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const started = Date.now();
  const r = await runOnly(cmd, args, opts);
  const cli = args.indexOf(cliPath);
  if (cli >= 0) {
    const out = outputDir(args.slice(cli + 1), opts);
    if (out) checkWritten(resolve(opts.cwd ?? '.', out), started);
    return r;
  }
  const env = { ...process.env, ...opts.env };
  if (env.HYPROF_RESOLVE !== '0') {
    const dir = env.HYPROF_DIR ?? env.PROFILEDIR;
    if (dir) checkWritten(resolve(opts.cwd ?? '.', dir), started);
  }
  return r;
}

/** The profile directory `hyprof run` / `hyprof resolve` writes to, from their arguments. */
function outputDir(args: string[], opts: RunOptions): string | undefined {
  const cmd = args[0] === 'record' ? 'run' : args[0];
  if (cmd !== 'run' && cmd !== 'resolve') return undefined;
  const dashes = args.indexOf('--');
  const own = dashes >= 0 ? args.slice(0, dashes) : args;
  const flags = cmd === 'run' ? ['--dir', '-o'] : ['-o', '--output'];
  for (let i = 1; i < own.length; i++) {
    for (const f of flags) {
      if (own[i] === f && i + 1 < own.length) return own[i + 1];
      if (own[i].startsWith(`${f}=`)) return own[i].slice(f.length + 1);
    }
    // `hyprof run PROGRAM ...` without `--`: the program's own arguments follow (an option's value,
    // `--period 500`, `--format merged`, is not the program).
    if (cmd === 'run' && dashes < 0 && !own[i].startsWith('-') && !['--period', '--format'].includes(own[i - 1])) break;
  }
  const env = { ...process.env, ...opts.env };
  return env.HYPROF_DIR ?? env.PROFILEDIR ?? opts.cwd ?? process.cwd();
}

/** Check `dir` when profile files were written there since `since` (ms since the epoch). */
function checkWritten(dir: string, since: number): void {
  if (!holdsProfile(dir)) return;
  let newest = 0;
  for (const f of readdirSync(dir)) {
    if (!/^profile\.\d+\.\d+\.\d+$/.test(f) && !f.startsWith('MULTI__') && f !== 'tauprofile.xml') continue;
    try {
      newest = Math.max(newest, statSync(join(dir, f)).mtimeMs);
    } catch {
      // removed meanwhile: not a profile of this run
    }
  }
  if (newest + 1000 < since) return;
  assertConformant(dir);
}

function runOnly(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) if (v !== undefined) env[k] = v;
    const child = spawn(cmd, args, { env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    opts.onSpawn?.(child);
  });
}

/** Run the hyprof command (the built CLI) with node; a profile `run` or `resolve` wrote is checked
 * for conformance. */
export async function hyprof(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const started = Date.now();
  const r = await runOnly(process.execPath, [cliPath, ...args], opts);
  const out = outputDir(args, opts);
  if (out) checkWritten(resolve(opts.cwd ?? '.', out), started);
  return r;
}

/** TAU-written reference profiles (a copy of shared/reference/tau kept with the tests, so a clone
 * anywhere runs them), or HYPROF_TAU_REFERENCE. */
export const tauReferenceDir = process.env.HYPROF_TAU_REFERENCE ?? join(repoRoot, 'test', 'fixtures', 'tau-reference');

/**
 * A CPU hog: a busy process per CPU and `extra` more (`sh` spinning, so nothing depends on a tool
 * being installed). The caller kills them.
 */
export function cpuHog(extra = 0): ChildProcess[] {
  return Array.from({ length: availableParallelism() + extra }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
}
