/** gfortran's linkage names read as Fortran (src/symbolize/fortran-names.ts). */
import test from 'ava';
import { fortranName } from '../src/symbolize/fortran-names.js';
import { fortranNames } from '../src/symbolize/tools.js';

test('module procedures become module::procedure; other names are left alone', (t) => {
  t.is(fortranName('__kernels_MOD_relax'), 'kernels::relax');
  t.is(fortranName('__my_solver_MOD_apply_bc'), 'my_solver::apply_bc', 'underscores in both parts');
  t.is(fortranName('__m2_MOD_f_'), 'm2::f_');
  t.is(fortranName('MAIN__'), 'MAIN__', 'the main program is named from debug information (tools.ts), not here');
  for (const other of ['main', 'relax_', '_ZN6kernel5relaxEv', 'kernel::relax()', '__libc_start_main', '__MOD_x', '__a_mod_b'])
    t.is(fortranName(other), other, other);
});

test('every frame of every inline chain is renamed', (t) => {
  const out = fortranNames([
    [
      { function: '__kernels_MOD_inner', file: 'k.f90', line: 3 },
      { function: '__kernels_MOD_outer', file: 'k.f90', line: 9 },
    ],
    null,
    [{ function: 'printf', file: '', line: 0 }],
  ]);
  t.deepEqual(
    out.map((f) => f?.map((x) => x.function)),
    [['kernels::inner', 'kernels::outer'], undefined, ['printf']],
  );
});
