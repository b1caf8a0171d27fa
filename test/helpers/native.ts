/**
 * Test helpers shared by every test: compile real C programs against the runtime, run them, run the
 * hyprof command. Nothing here fakes a part: programs are built by gcc / clang and run for real.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests run from dist/test/..., sources live beside). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const includeDir = join(repoRoot, 'native', 'include');
export const libDir = join(repoRoot, 'build', 'Release');
export const libPath = join(libDir, 'libhyprof.so');
export const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
export const testNativeDir = join(repoRoot, 'test', 'native');

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
 * Compile C sources (paths relative to test/native/ unless absolute) into an executable; returns its
 * path. Throws with the compiler's output on failure.
 */
export function compileC(name: string, sources: string[], opts: CompileOptions = {}): string {
  const cc = opts.cc ?? 'gcc';
  const out = join(opts.outDir ?? tmpDir(`cc-${name}`), name);
  const srcs = sources.map((s) => (s.startsWith('/') ? s : join(testNativeDir, s)));
  const link = opts.link ?? true;
  const args = [
    ...(opts.cflags ?? ['-O1', '-g']),
    `-I${includeDir}`,
    ...srcs,
    '-o',
    out,
    ...(link ? [`-L${libDir}`, `-Wl,-rpath,${libDir}`, '-lhyprof'] : []),
    '-lpthread',
    ...(opts.ldflags ?? []),
  ];
  const r = spawnSync(cc, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cc} ${args.join(' ')} failed:\n${r.stderr}`);
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

/** Run a program; resolves when it exits (killed after timeoutMs, default 120 s). */
export function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
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

/** Run the hyprof command (the built CLI) with node. */
export function hyprof(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return run(process.execPath, [cliPath, ...args], opts);
}

/** TAU-written reference profiles (a copy of shared/reference/tau kept with the tests, so a clone
 * anywhere runs them), or HYPROF_TAU_REFERENCE. */
export const tauReferenceDir = process.env.HYPROF_TAU_REFERENCE ?? join(repoRoot, 'test', 'fixtures', 'tau-reference');
