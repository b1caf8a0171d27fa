/**
 * Fortran names as Fortran programmers read them. gfortran gives a module procedure the linkage name
 * `__<module>_MOD_<procedure>` (`__kernels_MOD_relax`), which symbolizers print as it is (it is no
 * C++ mangling for them to undo): it is shown as `<module>::<procedure>` (`kernels::relax`). The main
 * program's code is the function `MAIN__`; its debug information holds the name of the PROGRAM
 * (`--functions=short` of llvm-symbolizer), which tools.ts asks for and puts in its place.
 * gfortran lower-cases every Fortran name, so an upper-case `_MOD_` is always its separator.
 */

const MODULE_PROCEDURE = /^__([a-z0-9_$]+?)_MOD_([a-z0-9_$][\w$.]*)$/;

/** The Fortran name of a gfortran module procedure's linkage name; any other name unchanged. */
export function fortranName(name: string): string {
  const m = MODULE_PROCEDURE.exec(name);
  return m ? `${m[1]}::${m[2]}` : name;
}

/** gfortran's function holding the main program's code. */
export const FORTRAN_MAIN = 'MAIN__';
