/**
 * The variables a measured process gets, in one place: `hyprof run` applies them to the program's
 * environment (run-measured.ts, childEnv), and `hyprof config --exec-env` writes the same list as a
 * POSIX shell fragment that the per-rank launcher `bin/hyprof-exec` reads, so that a rank started by
 * `mpirun ... hyprof-exec ./app` runs as under `hyprof run` without a Node process per rank (as TAU's
 * `tau_exec` does). Each variable carries its rule (set, append to a list, prepend, keep the user's
 * value), so that both forms combine it with the user's environment the same way.
 */
import { existsSync } from 'node:fs';
import { cudaLibPath } from '../base/package-root.js';
import { openmpSubstitution } from '../analysis/openmp-runtime.js';
import { shellLines, type EnvVar } from '../base/env-vars.js';

export { applyVars } from '../base/env-vars.js';

export interface MeasuredOptions {
  /** sampling on (default: on unless HYPROF_SAMPLING / TAU_SAMPLING say otherwise) or off */
  sampling: boolean;
  period?: number;
}

/**
 * The variables of a measured process. `libs`: the runtime, then the MPI layer when it was built (it
 * is inert in processes without MPI, mpirun among them: docs/mpi.md). `rawDir`: where the process
 * writes its raw file (for the shell fragment, a shell expression).
 */
export function measuredVars(libs: string[], rawDir: string, opts: MeasuredOptions, cudaLib: string = cudaLibPath): EnvVar[] {
  const vars: EnvVar[] = [
    { name: 'LD_PRELOAD', how: 'append', value: libs.join(':'), why: 'the runtime, and the MPI layer where it was built' },
    { name: 'HYPROF_RAW_DIR', how: 'set', value: rawDir, why: 'where the process writes its raw measurements' },
  ];
  // The CUDA layer, where it was built: the CUDA driver loads it when the program initialises CUDA
  // (CUDA_INJECTION64_PATH), so programs without CUDA never load it (docs/gpu.md). A tool the user
  // injects already is left in place.
  if (existsSync(cudaLib)) {
    vars.push({ name: 'CUDA_INJECTION64_PATH', how: 'default', value: cudaLib, unless: ['CUDA_INJECTION64_PATH'], why: 'the CUDA layer' });
  }
  // Symbolizing inside the measured process would cost the program's time: hyprof does it after.
  vars.push({ name: 'HYPROF_RESOLVE', how: 'set', value: '0', why: 'no symbolization in the measured process: hyprof resolves after' });
  if (!opts.sampling) vars.push({ name: 'HYPROF_SAMPLING', how: 'set', value: '0', why: 'probes only' });
  else vars.push({ name: 'HYPROF_SAMPLING', how: 'default', value: '1', unless: ['HYPROF_SAMPLING', 'TAU_SAMPLING'], why: 'sampling on' });
  if (opts.period !== undefined) vars.push({ name: 'HYPROF_PERIOD_US', how: 'set', value: String(opts.period), why: 'sampling period' });
  return vars;
}

/** Where a rank started by hyprof-exec writes its raw file: under the profile's directory, as the
 * ranks of `mpirun ... hyprof run` do (profile/profile-dir.ts, RANK_RAW_DIR), in a subdirectory per
 * node (`hyprof_node`: HYPROF_RAW_NODE, else the host's name, set by bin/hyprof-exec), so that a job
 * of many thousands of ranks does not put all its files in one directory, and a resolve per node
 * (`hyprof resolve --per-node`, run/node-step.ts) finds its node's files together. Every reader of a
 * raw directory looks one level down (profile-dir.ts, rawFilesUnder). A shell expression. */
export const EXEC_RAW_DIR = '${HYPROF_DIR:-${PROFILEDIR:-.}}/.hyprof-raw/${hyprof_node}';

/**
 * The shell fragment `bin/hyprof-exec` reads (`hyprof config --exec-env`): the variables of a measured
 * process with the raw directory under the user's HYPROF_DIR, and the OpenMP substitution (LLVM's
 * libomp in GNU libgomp's place) through a directory that lives with the package (`linkDir`), put
 * first on LD_LIBRARY_PATH for every rank: it holds only `libgomp.so.1`, so it changes nothing for a
 * program without libgomp, and the runtime records the substitution only where libomp was loaded
 * under libgomp's name (native/ompt/tool.c). HYPROF_OPENMP=off leaves it out, as with `hyprof run`.
 */
export function execEnvScript(libs: string[], linkDir: string, libomp: string | null, cudaLib: string = cudaLibPath): string {
  const lines = [
    '# The environment of a process measured by hyprof: written by `hyprof config --exec-env`',
    '# (src/run/measured-env.ts, the list `hyprof run` applies too) for bin/hyprof-exec, which sources it.',
    ...shellLines(measuredVars(libs, EXEC_RAW_DIR, { sampling: true }, cudaLib), new Set(['HYPROF_RAW_DIR'])),
  ];
  const omp = libomp ? openmpSubstitution(linkDir, libomp) : null;
  if (omp) {
    lines.push('case "${HYPROF_OPENMP:-${TAU_OMPT_SUPPORT_LEVEL:-}}" in', '  [Oo][Ff][Ff]) ;;', '  *)');
    lines.push(...shellLines(omp).map((l) => `    ${l}`), '    ;;', 'esac');
  } else {
    lines.push('# LLVM libomp is not installed: GNU libgomp programs run without OpenMP events (docs/openmp.md)');
  }
  return `${lines.join('\n')}\n`;
}
