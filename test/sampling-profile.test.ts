/**
 * From a sampled run to the TAU profile: `hyprof resolve` on the raw file this module wrote, read
 * back with the TAU reader. The known 70/30 split must survive as [CONTEXT] / [SAMPLE] nodes.
 */
import test from 'ava';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { compileC, hyprof, tmpDir } from './helpers/native.js';
import { runSampled } from './sampling-support.js';

test('resolve: [CONTEXT] R1 / R2 hold ~70% / ~30% of the samples, [SAMPLE] func_a under R1', async (t) => {
  const exe = compileC('sample_shares', ['sample_shares.c']);
  const { result, dir } = await runSampled(exe);
  t.is(result.code, 0, result.stderr);
  const out = join(tmpDir('sampling-profile'), 'prof');
  const r = await hyprof(['resolve', '-o', out, dir]);
  t.is(r.code, 0, r.stderr);
  const prof = readTauProfileDir(out);
  const events = prof.threads[0]![0]!.events;
  const get = (name: string) => events.find((e) => e.name === name);
  const r1 = get('[CONTEXT] R1');
  const r2 = get('[CONTEXT] R2');
  t.truthy(r1, events.map((e) => e.name).join('\n'));
  t.truthy(r2);
  t.is(r1!.group, 'TAU_SAMPLE_CONTEXT');
  // calls = samples (counts follow the CPU-time split even on a busy machine, see sampling-shares)
  const share = (100 * r1!.calls) / (r1!.calls + r2!.calls);
  t.true(Math.abs(share - 70) <= 5, `R1 has ${share.toFixed(1)}% of the samples`);
  t.true(r1!.incl > 0 && r1!.excl === 0, 'a context node carries the samples\' time as inclusive only');
  const a = events.find((e) => e.name.startsWith('[SAMPLE] func_a '));
  t.truthy(a);
  t.is(a!.group, 'TAU_SAMPLE');
  t.true(
    events.some((e) => e.name.startsWith('.TAU application => R1  => [CONTEXT] R1  => ') && e.name.endsWith(a!.name)),
    'func_a is sampled under R1',
  );
  t.false(events.some((e) => e.name.includes('[CONTEXT] R2') && e.name.includes('[SAMPLE] func_a')));
});
