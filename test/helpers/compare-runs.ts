/**
 * Real runs of test/native/compare_work.c to compare: run A with the work scale 1, run B with 2
 * (its `scaled_work` does twice the CPU work; `steady_work` the same), and `again`, a second run
 * of A's command (the same program twice: no difference but noise). They run at the same time so
 * a shared machine loads them alike; samples use the thread's CPU time (perf's task-clock), so
 * sampled values measure work, not waiting, and do so on a loaded machine too: `itimer-cpu`, which the
 * kernel paces by its ticks, gave 143–308 ms for 250 ms of work beside CPU hogs, and two identical
 * runs then differed beyond their errors now and then (docs/sampling.md). Built once per test process.
 */
import { join } from 'node:path';
import { compileC, hyprof, tmpDir } from './native.js';

export interface CompareRuns {
  a: string;
  b: string;
  /** Run A's command once more. */
  again: string;
  exe: string;
}

let runs: Promise<CompareRuns> | undefined;

export function compareRuns(): Promise<CompareRuns> {
  runs ??= (async () => {
    const exe = compileC('compare_work', ['compare_work.c'], { cflags: ['-O1', '-g', '-D_GNU_SOURCE'] });
    const root = tmpDir('compare-runs');
    const a = join(root, 'run-a');
    const b = join(root, 'run-b');
    const again = join(root, 'run-a-again');
    const env = { HYPROF_SAMPLE_SOURCE: 'task-clock' };
    const all = await Promise.all([
      hyprof(['run', '--dir', a, '--', exe, '1'], { env }),
      hyprof(['run', '--dir', b, '--', exe, '2'], { env }),
      hyprof(['run', '--dir', again, '--', exe, '1'], { env }),
    ]);
    for (const r of all) if (r.code !== 0) throw new Error(`hyprof run failed (${r.code}): ${r.stderr}`);
    return { a, b, again, exe };
  })();
  return runs;
}

/**
 * compare_work's iterations on one thread, from `hyprof export --format collapsed` of it: per
 * `Iteration N`, the samples in `scaled_work`'s own code and the probe timer's inclusive time (ms;
 * the timer's own row and every sample under it).
 */
export function compareIterations(collapsed: string): Map<string, { sampled: number; wall: number }> {
  const out = new Map<string, { sampled: number; wall: number }>();
  for (const line of collapsed.split('\n')) {
    const m = /^(.*) ([\d.e+]+)$/.exec(line);
    if (!m) continue;
    const frames = m[1].split(';');
    const at = frames.findIndex((f) => /^Iteration \d$/.test(f));
    if (at < 0 || frames[at + 1] !== 'scaled_work') continue;
    const it = out.get(frames[at]) ?? { sampled: 0, wall: 0 };
    const ms = Number(m[2]) / 1000;
    it.wall += ms;
    if (frames[at + 2] === 'scaled_work') it.sampled += ms; // a sample in the function's code
    out.set(frames[at], it);
  }
  return out;
}
