/**
 * CUDA kernels' names (src/symbolize/kernel-names.ts): demangled by c++filt as their source says them,
 * without parameter types; without c++filt, a plain function's name out of its mangled form and other
 * names as CUPTI gave them.
 */
import test from 'ava';
import { demangleKernels, kernelName } from '../src/symbolize/kernel-names.js';

test.serial('without c++filt on the PATH: plain names taken out of their mangled form, others kept', (t) => {
  const path = process.env.PATH;
  process.env.PATH = '/nonexistent';
  try {
    demangleKernels(['_ZN2ns4axpyIfEEvifPKT_PS1_', '_Z5saxpyifPKfPf']);
  } finally {
    process.env.PATH = path;
  }
  t.is(kernelName('_Z5saxpyifPKfPf'), 'saxpy');
  t.is(kernelName('_ZN2ns4axpyIfEEvifPKT_PS1_'), '_ZN2ns4axpyIfEEvifPKT_PS1_');
  t.is(kernelName('[CUDA memcpy HtoD]'), '[CUDA memcpy HtoD]');
});

test.serial('with c++filt: namespaces and template arguments, no parameter types', (t) => {
  demangleKernels(['_ZN2ns4axpyIfEEvifPKT_PS1_', '_Z4tinyv', '_ZN6solver6reduceILi256EEEvPKfPfi', 'a_c_kernel']);
  t.is(kernelName('_ZN2ns4axpyIfEEvifPKT_PS1_'), 'ns::axpy<float>');
  t.is(kernelName('_Z4tinyv'), 'tiny');
  t.is(kernelName('_ZN6solver6reduceILi256EEEvPKfPfi'), 'solver::reduce<256>');
  t.is(kernelName('a_c_kernel'), 'a_c_kernel');
});
