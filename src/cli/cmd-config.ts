/**
 * `hyprof config`: compiler and linker flags for building a program against the installed runtime,
 * in the manner of pkg-config (`cc $(npx hyprof config --cflags) app.c $(npx hyprof config --libs)`).
 */
import type { Command } from 'commander';
import { UserError } from '../base/errors.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compilerFamily, instrumentFlags } from './instrument-flags.js';
import { fortranModDir, fortranModPath, includeDir, installedPrefix, libDir, mpiLibPath, mpiRuntime, packageRoot, requireRuntime } from '../base/package-root.js';
import { readSelectFile } from './select-file.js';
import { findLibomp } from '../analysis/openmp-runtime.js';
import { execEnvScript } from '../run/measured-env.js';

interface ConfigOptions {
  cflags?: boolean;
  fflags?: boolean;
  libs?: boolean;
  includeDir?: boolean;
  libDir?: boolean;
  preload?: boolean;
  mpi?: boolean;
  instrument?: boolean;
  select?: string;
  compiler?: string;
  wrapper?: string;
  execEnv?: boolean;
  exec?: boolean;
}

/** The MPI layer's library, or a UserError saying why it is not there. */
function requireMpiLayer(): string {
  const lib = mpiRuntime();
  if (!lib) {
    throw new UserError(
      `--mpi: the MPI layer is not built (${mpiLibPath} is missing: no MPI compiler was found when hyprof was built). ` +
        "Install MPI (mpicc on the PATH, or MPICC=...) and run 'npm rebuild hyprof'",
      1,
    );
  }
  return lib;
}

/** The directory of hyprof.mod, or a UserError saying why it is not there. */
function requireFortranModule(): string {
  if (!existsSync(fortranModPath) && installedPrefix) {
    throw new UserError(
      `--fflags: no Fortran module is installed (${fortranModPath} is missing: make install found no Fortran compiler). ` +
        "Install gfortran (or set FC) and run 'make install' again; TAU's Fortran API (tau_profile_timer, ...) needs only --libs",
      1,
    );
  }
  if (!existsSync(fortranModPath)) {
    throw new UserError(
      `--fflags: the Fortran module is not built (${fortranModPath} is missing: no Fortran compiler was found when hyprof was built). ` +
        "Install gfortran (or set FC) and run 'npm rebuild hyprof'; TAU's Fortran API (tau_profile_timer, ...) needs only --libs",
      1,
    );
  }
  return fortranModDir;
}

export function configWords(opts: ConfigOptions): string[] {
  const lib = requireRuntime();
  const mpiLib = opts.mpi ? requireMpiLayer() : null;
  const modDir = opts.fflags ? requireFortranModule() : null;
  const none = !opts.cflags && !opts.fflags && !opts.libs && !opts.includeDir && !opts.libDir && !opts.preload && !opts.instrument;
  const words: string[] = [];
  if (opts.instrument) words.push(...instrumentWords(opts));
  // Printed as they are, like pkg-config: quotes would not survive `$(...)` word splitting, and a
  // single path (--preload) is best used as "$(hyprof config --preload)".
  if (opts.cflags || none) words.push(`-I${includeDir}`);
  // -I is where gfortran looks for .mod files (and for files of INCLUDE lines and #include).
  if (modDir) words.push(`-I${modDir}`);
  // The MPI layer first: its MPI_* wrappers must come before the MPI library (which mpicc / mpif90
  // add last), as TAU's -lTauMpi does. And --no-as-needed before it: the layer defines every MPI
  // routine a Fortran program calls (mpi_send_ ...) but not the library's, which it reaches through
  // weak references; with the toolchain's default --as-needed the linker would then drop the MPI
  // libraries mpif90 adds after it, and the program would run without MPI.
  if (opts.libs || none)
    words.push(...(mpiLib ? ['-Wl,--no-as-needed'] : []), `-L${libDir}`, `-Wl,-rpath,${libDir}`, ...(mpiLib ? ['-lhyprof_mpi'] : []), '-lhyprof');
  if (opts.includeDir) words.push(includeDir);
  if (opts.libDir) words.push(libDir);
  if (opts.preload) words.push(mpiLib ? `${lib}:${mpiLib}` : lib);
  return words;
}

/** --instrument: the flags of compiler instrumentation; what they cannot express goes to stderr. */
function instrumentWords(opts: ConfigOptions): string[] {
  const lists = opts.select ? readSelectFile(opts.select) : null;
  const { flags, notes } = instrumentFlags(compilerFamily(opts.compiler ?? process.env.CC ?? 'gcc'), lists);
  for (const n of notes) process.stderr.write(`hyprof: ${n}\n`);
  return flags;
}

export function register(program: Command): void {
  program
    .command('config')
    .description('print flags to compile and link a C/C++/Fortran program against hyprof')
    .option('--cflags', 'compiler flags: -I<dir> holding hyprof.h, hyprof.hpp and TAU.h')
    .option('--fflags', 'Fortran compiler flags: -I<dir> holding hyprof.mod (`use hyprof`)')
    .option('--libs', 'linker flags: -L, rpath and -lhyprof (also for Fortran: the module needs no library of its own)')
    .option('--include-dir', 'the include directory alone')
    .option('--lib-dir', 'the library directory alone')
    .option('--preload', 'the path of libhyprof.so (for LD_PRELOAD)')
    .option('--mpi', 'with the MPI layer: --libs adds -lhyprof_mpi (MPI calls become events), --preload both libraries')
    .option('--instrument', 'compiler instrumentation: -g -finstrument-functions (gcc, clang, gfortran; with --select, the exclusions gcc can express)')
    .option('--select <file>', "TAU's selective instrumentation file for --instrument (at run time: HYPROF_SELECT_FILE / TAU_SELECT_FILE)")
    .option('--wrapper <lang>', 'the path of the compiler wrapper script for make (cc, c++ or f90): CC="$(npx hyprof config --wrapper cc)", no Node start-up per compile')
    .option('--exec', 'the path of bin/hyprof-exec, the per-rank launcher of MPI jobs (a shell script: mpirun -np 128 "$(npx hyprof config --exec)" ./app)')
    .option('--exec-env', 'the environment of a measured process as POSIX shell lines (what bin/hyprof-exec, the per-rank launcher, sources)')
    .option('--compiler <name>', 'the compiler --instrument is for: gcc, g++, gfortran or clang (default: $CC, else gcc)')
    .addHelpText(
      'after',
      '\nWith no option, prints --cflags and --libs.\nExamples:\n  gcc $(npx hyprof config --cflags) app.c -o app $(npx hyprof config --libs)\n  mpicc app.c -o app $(npx hyprof config --libs --mpi)      # MPI: every rank writes profile.<rank>.0.*\n  gfortran $(npx hyprof config --fflags) app.f90 -o app $(npx hyprof config --libs)   # use hyprof\n  mpif90 app.f90 -o app $(npx hyprof config --libs --mpi)\n  gcc $(npx hyprof config --instrument) app.c -o app $(npx hyprof config --libs)   # every function a timer',
    )
    .action((opts: ConfigOptions) => {
      if (opts.exec) {
        requireRuntime();
        // make install puts it in PREFIX/bin, beside this executable.
        process.stdout.write(`${join(installedPrefix ?? packageRoot, 'bin', 'hyprof-exec')}\n`);
        return;
      }
      if (opts.execEnv) {
        const lib = requireRuntime();
        const mpiLib = mpiRuntime();
        process.stdout.write(execEnvScript(mpiLib ? [lib, mpiLib] : [lib], join(libDir, 'openmp-runtime'), findLibomp()));
        return;
      }
      if (opts.wrapper !== undefined) {
        if (!['cc', 'c++', 'f90'].includes(opts.wrapper)) throw new UserError(`--wrapper ${opts.wrapper}: the wrappers are cc, c++ and f90`);
        if (installedPrefix) throw new UserError('--wrapper: the compiler wrapper scripts come with the npm package (bin/hyprof-cc, ...), not with make install', 1);
        requireRuntime();
        process.stdout.write(`${join(packageRoot, 'bin', `hyprof-${opts.wrapper}`)}\n`);
        return;
      }
      process.stdout.write(`${configWords(opts).join(' ')}\n`);
    });
}
