/**
 * Parallel regions nested deeper than the OpenMP tool follows (16 levels per thread;
 * test/native/omp_deep.c nests 20 regions of one thread, three times): the program runs as without
 * hyprof, the regions beyond the 16th are counted as the tool's lost records and the resolve says
 * so, the profile is whole (TAU's reader accepts it), and, traced, every fork has its join and every
 * Enter its Leave: an end of a region the tool did not follow never closes one it did.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { haveTool, hyprof, repoRoot, tmpDir } from './helpers/native.js';
import { buildOmp } from './openmp-helpers.js';
import { assertConformant } from './helpers/conformance.js';

const PYTHON = '/usr/bin/python3';

for (const cc of ['clang', 'gcc'] as const) {
  test(`${cc}: 20 nested regions: the 4 beyond the tool's 16 levels counted and said, the trace balanced`, async (t) => {
    const exe = buildOmp('omp_deep', join(repoRoot, 'test', 'native', 'omp_deep.c'), cc);
    const plain = spawnSync(exe, ['20'], { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '2' } });
    const dir = join(tmpDir(`omp-deep-${cc}`), 'prof');
    const r = await hyprof(['run', '--dir', dir, '--', exe, '20'], { env: { OMP_NUM_THREADS: '2', HYPROF_OPENMP: 'full', HYPROF_TRACE: '1' } });
    t.is(r.code, 0, r.stderr);
    t.is(r.stdout, plain.stdout, 'the program prints what it prints without hyprof');
    // 3 rounds x 4 regions beyond the 16th, each a parallel region and its implicit task
    t.regex(r.stderr, /the OpenMP tool could not keep 24 of its records \(a per-thread table full, or parallel regions nested deeper than the 16 levels it follows\)/);
    assertConformant(dir);
    if (!haveTool('otf2-print') || spawnSync(PYTHON, ['-c', 'import otf2']).status !== 0) {
      t.log('otf2-print or python3-otf2 missing: the trace is not read');
      return;
    }
    const py = spawnSync(PYTHON, [join(repoRoot, 'test', 'helpers', 'otf2_check.py'), join(dir, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 28 });
    t.is(py.status, 0, py.stderr);
    const a = JSON.parse(py.stdout) as { locations: Array<{ name: string; enter: number; leave: number; mismatched: number; open_at_end: number }> };
    for (const l of a.locations) {
      t.is(l.enter, l.leave, `${l.name}: every enter has its leave`);
      t.is(l.mismatched, 0, `${l.name}: leaves nest`);
      t.is(l.open_at_end, 0, `${l.name}: nothing left open`);
    }
    const printed = spawnSync('otf2-print', [join(dir, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const count = (kind: string) => (printed.stdout.match(new RegExp(`^${kind} `, 'gm')) ?? []).length;
    t.is(count('THREAD_FORK'), 3 * 16, 'a fork for each region the tool follows');
    t.is(count('THREAD_JOIN'), count('THREAD_FORK'));
    t.is(count('THREAD_TEAM_END'), count('THREAD_TEAM_BEGIN'));
  });
}
