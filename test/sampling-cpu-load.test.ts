/**
 * The CPU-time sources on a loaded machine. test/native/compare_work.c does 0.25 s of CPU work in
 * `scaled_work` in each of three iterations, timed by probes (wall time); run beside a CPU hog of a
 * busy process per CPU and one more, the work takes well over 0.25 s of wall time. perf's
 * `task-clock` and `cpu-clock` count the thread's time on a CPU, so each iteration's samples must
 * add up to its 0.25 s of CPU, not to the wall time in which the thread also waited to run (which
 * they did when a sample weighed the wall time since the last: 0.60-0.68 s).
 */
import test from 'ava';
import { join } from 'node:path';
import { compareIterations } from './helpers/compare-runs.js';
import { compileC, cpuHog, hyprof, tmpDir } from './helpers/native.js';

for (const source of ['task-clock', 'cpu-clock']) {
  test.serial(`${source} beside a CPU hog: each iteration's samples add up to its CPU time, not its wall time`, async (t) => {
    const exe = compileC('compare_work', ['compare_work.c'], { cflags: ['-O1', '-g', '-D_GNU_SOURCE'] });
    const dir = join(tmpDir(`cpu-load-${source}`), 'prof');
    const hogs = cpuHog(1);
    let r;
    try {
      r = await hyprof(['run', '--dir', dir, '--', exe, '1'], { env: { HYPROF_SAMPLE_SOURCE: source }, timeoutMs: 120_000 });
    } finally {
      for (const h of hogs) h.kill('SIGKILL');
    }
    t.is(r.code, 0, r.stderr);
    t.notRegex(r.stderr, /cannot be opened/, `${source} is usable here (the sampling-config tests need it too)`);
    const out = await hyprof(['export', '--format', 'collapsed', '--thread', '0,0,0', dir]);
    t.is(out.code, 0, out.stderr);
    const its = compareIterations(out.stdout);
    t.is(its.size, 3, out.stdout.slice(0, 400));
    for (const [name, { sampled, wall }] of its) {
      t.log(`${name}: scaled_work sampled ${sampled.toFixed(1)} ms of CPU in ${wall.toFixed(1)} ms of wall time`);
      // the hog took effect: the thread waited to run for a good part of the iteration
      t.true(wall > 1.3 * 250, `${name}: ${wall} ms of wall time for 250 ms of work`);
      // a period (1 ms) or two either side: where the first and last samples of the work fall
      t.true(Math.abs(sampled - 250) <= 12.5, `${name}: ${sampled} ms sampled for 250 ms of CPU work`);
    }
  });
}
