/**
 * A Node program's async regions in the trace (HYPROF_TRACE=1 under `hyprof run -- node`):
 * test/native/node_fold.mjs runs N instances of the async region `request`, each spinning in parse(),
 * awaiting, then spinning in render(). Each slice of a region's own code (up to its await, and its
 * continuation) is an Enter / Leave of the region on the main thread's location, properly nested,
 * read by the OTF2 project's own Python reader; together the slices are the region's time in the
 * profile (own code and children, docs/node.md), within a clock read per slice.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { hyprof, repoRoot, testNativeDir, tmpDir } from './helpers/native.js';
import { PYTHON, traceRunMissing } from './helpers/otf2.js';

const N = 20;

const why = traceRunMissing();
if (why) console.log(`Node trace test skipped: ${why}`);

(why ? test.skip : test)('async regions: each slice of their own code an Enter / Leave, the slices the profile\'s time', async (t) => {
  const dir = join(tmpDir('trace-node'), 'prof');
  const r = await hyprof(['run', '--dir', dir, '--', process.execPath, join(testNativeDir, 'node_fold.mjs'), String(N), '5'], {
    env: { HYPROF_MODULE: join(repoRoot, 'dist', 'src', 'index.js'), HYPROF_TRACE: '1' },
    timeoutMs: 120_000,
  });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /trace: traces\.otf2 \(OTF2, 1 location, \d+ events\)/);
  const py = spawnSync(PYTHON, [join(repoRoot, 'test', 'helpers', 'otf2_check.py'), join(dir, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 28 });
  t.is(py.status, 0, py.stderr);
  const [loc] = (JSON.parse(py.stdout) as { locations: Array<{ enter: number; leave: number; mismatched: number; open_at_end: number; backwards: number; regions: Record<string, { incl: number; calls: number }> }> }).locations;
  t.is(loc.enter, loc.leave);
  t.deepEqual([loc.mismatched, loc.open_at_end, loc.backwards], [0, 0, 0]);
  const slices = loc.regions.request;
  t.truthy(slices, JSON.stringify(Object.keys(loc.regions)));
  // at least the part before the await and its continuation, per instance
  t.true(slices.calls >= 2 * N, `${slices.calls} slices for ${N} instances`);
  const req = readTauProfileDir(dir).threads[0][0].events.find((e) => e.name === 'request');
  t.is(req?.calls, N, 'the profile counts instances');
  const tracedUs = slices.incl / 1000;
  t.true(Math.abs(tracedUs - req!.incl) <= 1 * slices.calls + 2, `slices ${tracedUs} µs, profile ${req!.incl} µs`);
});
