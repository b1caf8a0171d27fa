/**
 * Where the installed package lives, found from this file's own location (dist/src/cli/ → package
 * root), so `hyprof` works from any current directory and from npx.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../base/errors.js';

export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const includeDir = join(packageRoot, 'native', 'include');
export const libDir = join(packageRoot, 'build', 'Release');
export const libPath = join(libDir, 'libhyprof.so');
/** The MPI layer, built only where an MPI compiler was found (docs/mpi.md). */
export const mpiLibPath = join(libDir, 'libhyprof_mpi.so');

/** The Fortran module file, built only where a Fortran compiler was found (docs/fortran.md). */
export const fortranModDir = join(libDir, 'fortran');
export const fortranModPath = join(fortranModDir, 'hyprof.mod');

/** The MPI layer's library when it was built, else null. */
export function mpiRuntime(): string | null {
  return existsSync(mpiLibPath) ? mpiLibPath : null;
}

export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The runtime library, or a UserError telling how to build it. */
export function requireRuntime(): string {
  if (!existsSync(libPath)) {
    throw new UserError(
      `the native runtime is not built (${libPath} is missing): run 'npm rebuild hyprof', or 'npx node-gyp rebuild' in ${packageRoot}`,
      1,
    );
  }
  return libPath;
}
