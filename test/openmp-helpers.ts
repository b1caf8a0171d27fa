/**
 * Shared steps of the OpenMP tests: build a test/native/omp_*.c program with an OpenMP compiler, run
 * it under the runtime (linked) with sampling, and read back the raw file, the OpenMP analysis and
 * the TAU profile that `hyprof resolve` writes.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeRawFiles, readOpenmpFile, type OpenmpFile } from '../src/analysis/openmp.js';
import type { OpenmpAnalysis } from '../src/analysis/openmp-model.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauProfile } from '../src/profile/tau-model.js';
import { compileC, hyprof, run, tmpDir } from './helpers/native.js';

export interface OmpRun {
  dir: string;
  raws: string[];
  stdout: string;
  stderr: string;
}

export function buildOmp(name: string, source: string, cc: 'clang' | 'gcc' = 'clang'): string {
  return compileC(`${name}_${cc}`, [source], { cc, cflags: ['-O1', '-g', '-fopenmp'], ldflags: ['-fopenmp'] });
}

/** Run an OpenMP test program with sampling (200 Hz unless given) and keep its raw file. */
export async function runOmp(exe: string, args: string[], env: Record<string, string | undefined> = {}): Promise<OmpRun> {
  const dir = tmpDir('omp');
  const r = await run(exe, args, {
    env: {
      OMP_NUM_THREADS: '2',
      HYPROF_SAMPLING: '1',
      HYPROF_PERIOD_US: '2000',
      HYPROF_RESOLVE: '0',
      HYPROF_RAW_DIR: dir,
      HYPROF_DIR: dir,
      ...env,
    },
  });
  if (r.code !== 0) throw new Error(`${exe} ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  const raws = readdirSync(dir)
    .filter((f) => f.endsWith('.raw'))
    .map((f) => join(dir, f));
  return { dir, raws, stdout: r.stdout, stderr: r.stderr };
}

export async function analysisOf(r: OmpRun): Promise<OpenmpAnalysis> {
  const data: OpenmpFile = await analyzeRawFiles(r.raws);
  if (data.processes.length !== 1) throw new Error(`expected one process with the OpenMP tool, got ${data.processes.length}`);
  return data.processes[0];
}

/** `hyprof resolve` into <dir>/profile; returns the profile, the OpenMP file and the command's output. */
export async function resolveOmp(r: OmpRun): Promise<{ profile: TauProfile; openmp: OpenmpFile | null; stderr: string; out: string }> {
  const out = join(r.dir, 'profile');
  const res = await hyprof(['resolve', ...r.raws, '-o', out]);
  if (res.code !== 0) throw new Error(`hyprof resolve failed: ${res.stderr}`);
  let openmp: OpenmpFile | null = null;
  try {
    openmp = readOpenmpFile(out);
  } catch {
    openmp = null;
  }
  return { profile: readTauProfileDir(out), openmp, stderr: res.stderr + res.stdout, out };
}
