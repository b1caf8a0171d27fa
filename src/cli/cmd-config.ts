/**
 * `hyprof config`: compiler and linker flags for building a program against the installed runtime,
 * in the manner of pkg-config (`cc $(npx hyprof config --cflags) app.c $(npx hyprof config --libs)`).
 */
import type { Command } from 'commander';
import { includeDir, libDir, requireRuntime } from './package-root.js';

interface ConfigOptions {
  cflags?: boolean;
  libs?: boolean;
  includeDir?: boolean;
  libDir?: boolean;
  preload?: boolean;
}

export function configWords(opts: ConfigOptions): string[] {
  const lib = requireRuntime();
  const none = !opts.cflags && !opts.libs && !opts.includeDir && !opts.libDir && !opts.preload;
  const words: string[] = [];
  // Printed as they are, like pkg-config: quotes would not survive `$(...)` word splitting, and a
  // single path (--preload) is best used as "$(hyprof config --preload)".
  if (opts.cflags || none) words.push(`-I${includeDir}`);
  if (opts.libs || none) words.push(`-L${libDir}`, `-Wl,-rpath,${libDir}`, '-lhyprof');
  if (opts.includeDir) words.push(includeDir);
  if (opts.libDir) words.push(libDir);
  if (opts.preload) words.push(lib);
  return words;
}

export function register(program: Command): void {
  program
    .command('config')
    .description('print flags to compile and link a C/C++/Fortran program against hyprof')
    .option('--cflags', 'compiler flags: -I<dir> holding hyprof.h, hyprof.hpp and TAU.h')
    .option('--libs', 'linker flags: -L, rpath and -lhyprof')
    .option('--include-dir', 'the include directory alone')
    .option('--lib-dir', 'the library directory alone')
    .option('--preload', 'the path of libhyprof.so (for LD_PRELOAD)')
    .addHelpText(
      'after',
      '\nWith no option, prints --cflags and --libs.\nExample:\n  gcc $(npx hyprof config --cflags) app.c -o app $(npx hyprof config --libs)',
    )
    .action((opts: ConfigOptions) => {
      process.stdout.write(`${configWords(opts).join(' ')}\n`);
    });
}
