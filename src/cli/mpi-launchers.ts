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
