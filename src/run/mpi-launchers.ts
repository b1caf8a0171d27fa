/**
 * MPI launchers by name: `hyprof run -- mpirun -np 4 ./app` runs one, and then everything its ranks
 * left is resolved at once (ranks without measurements are named). The runtime knows the same names
 * and stays inert in these processes (native/core/rank.c).
 */
import { basename } from 'node:path';

const LAUNCHERS = new Set([
  'mpirun', 'mpiexec', 'orterun', 'prterun', 'prun', 'mpiexec.hydra', 'mpiexec.mpich', 'mpirun.mpich',
  'mpiexec.openmpi', 'mpirun.openmpi', 'srun',
]);

export function isMpiLauncher(program: string): boolean {
  return LAUNCHERS.has(basename(program));
}

/** Rank variables of launchers, in the runtime's order of trust (native/core/rank.c). */
const RANK_VARS = ['OMPI_COMM_WORLD_RANK', 'PMIX_RANK', 'PMI_RANK', 'MV2_COMM_WORLD_RANK', 'SLURM_PROCID'];

/**
 * The rank this process is in an MPI job, from its launcher's environment; null when no launcher
 * started it. (`mpirun -np 4 hyprof run -- ./app`: each hyprof is a rank.)
 */
export function launcherRank(env: NodeJS.ProcessEnv = process.env): number | null {
  for (const v of RANK_VARS) {
    const x = env[v];
    if (x !== undefined && /^\d+$/.test(x.trim())) return Number(x);
  }
  return null;
}

/** Where ranks of a job keep their raw files until each resolved its own (`<output>/.hyprof-raw`). */
export const RANK_RAW_DIR = '.hyprof-raw';

/**
 * What `hyprof run` adds to a launcher's environment. When a rank fails or calls MPI_Abort, Open MPI
 * stops the other ranks with SIGCONT, then SIGTERM (on which the runtime writes their measurements),
 * then SIGKILL, waiting `odls_base_sigkill_timeout` seconds before each of the last two: 1 by
 * default, too short for a rank's write on a loaded (oversubscribed) node, where a rank was lost in
 * about half of the runs (none of 10 with 3 s). 3 seconds, unless the user set it: an aborted job
 * ends about 4 s later than with 1. Other launchers do not read the variable.
 */
export function launcherEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return env.OMPI_MCA_odls_base_sigkill_timeout === undefined ? { OMPI_MCA_odls_base_sigkill_timeout: '3' } : {};
}
