/**
 * `hyprof run` and OpenMP runtimes: GNU libgomp never calls an OpenMP tool, so a gcc-built OpenMP
 * program would give no OpenMP events. LLVM's libomp provides libgomp's GOMP_* entry points, so when
 * it is installed the program is run on it instead: a directory holding `libgomp.so.1 → libomp.so.5`
 * goes first on LD_LIBRARY_PATH (libgomp is then never loaded, so no two runtimes coexist). The
 * runtime changes performance (PLATFORM-FACTS: a task-heavy benchmark went from 4.5 s to 9–10 s), so
 * the substitution is recorded (HYPROF_OPENMP_SUBSTITUTED → profile metadata) and reported.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { applyVars, type EnvVar } from '../base/env-vars.js';

/** Where Debian / Ubuntu and LLVM's own packages put libomp. */
const LIBOMP_CANDIDATES = [
  '/usr/lib/x86_64-linux-gnu/libomp.so.5',
  '/usr/lib/aarch64-linux-gnu/libomp.so.5',
  ...[18, 17, 16, 15, 14, 13].map((v) => `/usr/lib/llvm-${v}/lib/libomp.so.5`),
  '/usr/local/lib/libomp.so.5',
  '/usr/lib64/libomp.so.5',
];

export function findLibomp(candidates: string[] = LIBOMP_CANDIDATES): string | null {
  return candidates.find((p) => existsSync(p)) ?? null;
}

/** The shared libraries `program` loads, as the dynamic loader resolves them (ldd); [] when unknown. */
export function loadedLibraries(program: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const r = spawnSync('ldd', [program], { encoding: 'utf8', env });
  if (r.status !== 0 || !r.stdout) return [];
  return r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0])
    .filter((x) => x && x.includes('.so'));
}

export interface OpenmpRunPlan {
  /** Variables to set in the measured program's environment. */
  env: Record<string, string>;
  /** One line for the user (stderr), or null when there is nothing to say. */
  note: string | null;
}

/**
 * Decide how to run `program` so that an OpenMP tool is active. `workDir` is a directory that lives
 * as long as the run (the link is created in it). HYPROF_OPENMP=off (or TAU_OMPT_SUPPORT_LEVEL=off)
 * leaves everything as it is.
 */
export function planOpenmpRuntime(
  program: string,
  workDir: string,
  base: NodeJS.ProcessEnv = process.env,
  libomp: string | null = findLibomp(),
): OpenmpRunPlan {
  const level = (base.HYPROF_OPENMP ?? base.TAU_OMPT_SUPPORT_LEVEL ?? '').toLowerCase();
  if (level === 'off') return { env: {}, note: null };
  const libs = loadedLibraries(program, base);
  if (!libs.some((l) => /^libgomp\.so/.test(l))) return { env: {}, note: null };
  if (!libomp) {
    return {
      env: {},
      note:
        'hyprof: the program uses GNU libgomp, which has no OpenMP tools interface, and LLVM libomp is not installed: ' +
        'no OpenMP runtime with the tools interface is active, so there will be no OpenMP events or metrics ' +
        '(install libomp, e.g. the libomp5 package, or build with clang -fopenmp)',
    };
  }
  const vars = openmpSubstitution(join(workDir, 'openmp-runtime'), libomp);
  const applied = applyVars(base, vars);
  return {
    env: Object.fromEntries(vars.map((v) => [v.name, applied[v.name] ?? ''])),
    note: `hyprof: ${substitutionText(libomp)}`,
  };
}

/** What the metadata and the notes say of a substituted runtime. */
function substitutionText(libomp: string): string {
  return `GNU libgomp replaced by LLVM libomp (${libomp}) so that the OpenMP tools interface is active; run times may differ from runs on libgomp`;
}

/**
 * The variables that run a libgomp program on `libomp`: `dir` (created) holds `libgomp.so.1 → libomp`
 * and goes first on LD_LIBRARY_PATH; HYPROF_OPENMP_SUBSTITUTED says so in the profile's metadata.
 * The directory holds nothing else, so a program without libgomp loads nothing from it, and the
 * runtime records the substitution only where the OpenMP runtime was loaded under libgomp's name
 * (native/ompt/tool.c): the variables may be given to every rank of a job without looking at the
 * program (`hyprof run -- mpirun ...`, bin/hyprof-exec).
 */
export function openmpSubstitution(dir: string, libomp: string): EnvVar[] {
  mkdirSync(dir, { recursive: true });
  const link = join(dir, 'libgomp.so.1');
  try {
    symlinkSync(libomp, link);
  } catch (e) {
    // made already (by an earlier run, or another rank at the same moment)
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return [
    { name: 'LD_LIBRARY_PATH', how: 'prepend', value: dir, why: 'LLVM libomp in GNU libgomp\'s place: the OpenMP tools interface is active' },
    { name: 'HYPROF_OPENMP_SUBSTITUTED', how: 'set', value: substitutionText(libomp), why: 'recorded in the metadata where the substitution took place' },
  ];
}
