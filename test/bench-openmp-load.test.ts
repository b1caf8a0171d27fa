/**
 * bench/openmp-load.ts takes programs a user names: a bad command line, a program that cannot run and
 * one without OpenMP measurements each get one line naming it and what was wrong, and a non-zero exit.
 */
import test from 'ava';
import { join } from 'node:path';
import { repoRoot, run } from './helpers/native.js';

const bench = join(repoRoot, 'dist', 'bench', 'openmp-load.js');

test('a bad command line: the usage, exit 2', async (t) => {
  for (const args of [[], ['x', '--', '/bin/true'], ['2'], ['2', '--']]) {
    const r = await run(process.execPath, [bench, ...args]);
    t.is(r.code, 2, args.join(' '));
    t.is(r.stderr, 'usage: node dist/bench/openmp-load.js <rounds> -- <program> [args...] [-- <program> [args...]]...\n');
  }
});

test('a program that cannot run, and one without OpenMP measurements: one line each, exit 1', async (t) => {
  const missing = await run(process.execPath, [bench, '1', '--', '/nonexistent/omp-program', '-n', '3']);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /^openmp-load: \/nonexistent\/omp-program -n 3: hyprof run exited 127: hyprof: cannot run '\/nonexistent\/omp-program'.*\n$/);
  const plain = await run(process.execPath, [bench, '1', '--', '/bin/true']);
  t.is(plain.code, 1);
  t.regex(plain.stderr, /^openmp-load: \/bin\/true: .*: no OpenMP measurements \(openmp\.json is missing\).*\n$/);
});
