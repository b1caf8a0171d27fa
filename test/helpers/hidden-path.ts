/**
 * A PATH as a machine without some tools has it: a fresh directory of links to every program on the
 * current PATH except the ones left out (the compilers, or node). Tests of the install routes run
 * with it to show what the route needs and what it does not.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tmpDir } from './native.js';

/** The C/C++/Fortran/MPI compilers, make, the linker and assembler, python3 (node-gyp's). */
export const COMPILERS =
  /^(?:.*-)?(?:cc|c\+\+|cpp|gcc|g\+\+|clang|clang\+\+|clang-cpp|gfortran|f77|f95|mpicc|mpicxx|mpic\+\+|mpif77|mpif90|mpifort|make|gmake|ld|ld\.[a-z]+|as|python[\d.]*)(?:-[\d.]+)?$/;
/** Node itself and the programs that run it. */
export const NODE = /^(?:node|nodejs|npm|npx|corepack)$/;

/** A PATH holding links to every program of the current PATH whose name `leaveOut` does not match. */
export function pathWithout(leaveOut: RegExp): string {
  const bin = join(tmpDir('path'), 'bin');
  mkdirSync(bin);
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (!dir || !existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (leaveOut.test(name) || existsSync(join(bin, name))) continue;
      const target = join(dir, name);
      try {
        if (!statSync(target).isFile()) continue;
      } catch {
        continue;
      }
      symlinkSync(target, join(bin, name));
    }
  }
  return bin;
}

/** The tools of `names` a shell finds on `path` (a test asserts it is none of the hidden ones). */
export function toolsFound(path: string, names: string[]): string[] {
  return names.filter((n) => spawnSync('/bin/sh', ['-c', `command -v ${n}`], { env: { PATH: path }, stdio: 'ignore' }).status === 0);
}
