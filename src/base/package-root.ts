/**
 * Where the installed package lives, found from this file's own location (dist/src/cli/ → package
 * root), so `hyprof` works from any current directory and from npx.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from './errors.js';
import { inSingleExecutable, singleExecutableText } from './single-executable.js';

export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The single executable installed by `make install` into <prefix>/bin finds <prefix>/include and
 * <prefix>/lib; in the package, native/include and the native build. */
export const installedPrefix = inSingleExecutable() ? resolve(dirname(process.execPath), '..') : null;
export const includeDir = installedPrefix ? join(installedPrefix, 'include') : join(packageRoot, 'native', 'include');
/** Where the native runtime is: as node-gyp-build picks the addon, a build from source
 * (build/Release) first, else the prebuilt binaries npm installed (prebuilds/<platform>-<arch>). */
export const libDir = runtimeDir();
export const libPath = join(libDir, 'libhyprof.so');
/** The MPI layer, built only where an MPI compiler was found (docs/mpi.md). */
export const mpiLibPath = join(libDir, 'libhyprof_mpi.so');
/** The CUDA layer, built only where CUDA with CUPTI was found (docs/gpu.md). */
export const cudaLibPath = join(libDir, 'libhyprof_cuda.so');

function runtimeDir(): string {
  if (installedPrefix) return join(installedPrefix, 'lib');
  const built = join(packageRoot, 'build', 'Release');
  const prebuilt = join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`);
  return !existsSync(join(built, 'libhyprof.so')) && existsSync(join(prebuilt, 'libhyprof.so')) ? prebuilt : built;
}

/** The Fortran module file, built only where a Fortran compiler was found (docs/fortran.md): beside
 * the runtime (build/Release/fortran, or the prebuilt binaries' directory, scripts/install-fortran.sh),
 * or where `make install` puts it, with the headers. */
export const fortranModDir = installedPrefix ? includeDir : join(libDir, 'fortran');
export const fortranModPath = join(fortranModDir, 'hyprof.mod');

/** The OTF2 writer (native/otf2/), built only where the OTF2 library was found (docs/trace.md). */
export const otf2WriterPath = join(libDir, 'hyprof-otf2');

/** The OTF2 writer when it was built, else null. */
export function otf2Writer(): string | null {
  return existsSync(otf2WriterPath) ? otf2WriterPath : null;
}

/** The MPI layer's library when it was built, else null. */
export function mpiRuntime(): string | null {
  return existsSync(mpiLibPath) ? mpiLibPath : null;
}

export function packageVersion(): string {
  const bundled = singleExecutableText('version');
  if (bundled) return bundled;
  try {
    return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The runtime library, or a UserError telling how to build it. */
export function requireRuntime(): string {
  if (!existsSync(libPath) && installedPrefix) {
    throw new UserError(
      `this hyprof is the single executable, and no runtime is installed beside it (${libPath} is missing): ` +
        "install the runtime with 'make install PREFIX=...' from the hyprof sources, or use the npm package (docs/install.md)",
      1,
    );
  }
  if (!existsSync(libPath)) {
    throw new UserError(
      `the native runtime is not built (${libPath} is missing): run 'npm rebuild hyprof', or 'npx node-gyp rebuild' in ${packageRoot}`,
      1,
    );
  }
  return libPath;
}
