/**
 * Known answers for sampling: time shares per function and context, depth limits and the stop rule,
 * callpaths from two call sites.
 */
import test from 'ava';
import { compileC, libPath } from './helpers/native.js';
import { contextName, contextPath, frames, runSampled, symbolize, totalSamples } from './sampling-support.js';

test('70% in A inside R1, 30% in B inside R2: shares within 5 points, each under its context', async (t) => {
  const exe = compileC('sample_shares', ['sample_shares.c']);
  const { result, raws } = await runSampled(exe, [], { HYPROF_PERIOD_US: '1000' });
  t.is(result.code, 0, result.stderr);
  t.is(raws.length, 1);
  const p = raws[0]!;
  const name = symbolize(p);
  const main = p.threads.find((th) => th.index === 0)!;
  let a = 0;
  let b = 0;
  let misplaced = 0;
  for (const s of main.samples) {
    const fns = frames(name, s);
    const ctx = contextName(p, s.context);
    // shares by sample count: the work is CPU time, and a busy machine that delays the thread
    // merges the timer's signals (one late sample), so counts follow CPU time, while the TIME a
    // late sample carries includes the wait
    const v = s.count;
    if (fns.includes('func_a')) {
      if (ctx === 'R1') a += v;
      else misplaced += v;
    } else if (fns.includes('func_b')) {
      if (ctx === 'R2') b += v;
      else misplaced += v;
    }
  }
  const n = totalSamples(main);
  t.true(n > 50, `only ${n} samples`);
  const total = n;
  t.true(a + b > 0.9 * total, `A ${a} + B ${b} of ${total}`);
  t.true(misplaced <= 0.01 * total, `${misplaced} samples of A/B under the wrong context`);
  const shareA = (100 * a) / (a + b);
  t.true(Math.abs(shareA - 70) <= 5, `A has ${shareA.toFixed(1)}%`);
  t.true(Math.abs(100 - shareA - 30) <= 5);
  t.deepEqual(contextPath(p, main.samples.find((s) => frames(name, s).includes('func_a'))!.context), [
    '.TAU application',
    'R1',
  ]);
});

test('recursion 5000 deep: callpaths stop at the depth limit (10), and at the fixed cap with depth 0', async (t) => {
  const exe = compileC('sample_depth', ['sample_depth.c']);
  for (const [depth, want] of [
    ['10', 10],
    ['0', 256],
  ] as const) {
    const { result, raws } = await runSampled(exe, ['deep'], { HYPROF_UNWIND_DEPTH: depth });
    t.is(result.code, 0, result.stderr);
    const p = raws[0]!;
    const main = p.threads.find((th) => th.index === 0)!;
    const name = symbolize(p);
    const deep = main.samples.filter((s) => contextName(p, s.context) === 'deep');
    const n = deep.reduce((k, s) => k + s.count, 0);
    t.true(n > 15, `${n} samples under deep`);
    t.true(main.samples.every((s) => s.pcs.length <= want), `depth ${depth}: a callpath is longer than ${want}`);
    // samples in the spin at the bottom (pc in recurse; a few land in clock_gettime instead)
    const bottom = deep.filter((s) => frames(name, s)[0] === 'recurse');
    const nb = bottom.reduce((k, s) => k + s.count, 0);
    t.true(nb > 0.8 * n, `depth ${depth}: ${nb} of ${n} samples in recurse itself`);
    const full = bottom.filter((s) => s.pcs.length === want).reduce((k, s) => k + s.count, 0);
    t.true(full > 0.95 * nb, `depth ${depth}: only ${full} of ${nb} samples reach ${want} frames`);
    for (const s of bottom.filter((s) => s.pcs.length === want))
      t.true(frames(name, s).every((f) => f === 'recurse'), frames(name, s).join(' < '));
    const truncated = main.drops.find(([r]) => r === 'unwind_truncated')?.[1] ?? 0;
    if (depth === '0') t.true(truncated >= full, `depth 0: ${truncated} truncations counted, ${full} full stacks`);
    else t.is(truncated, 0, 'no truncation is counted at depth 10');
    t.is(attributeOf(p, 'TAU_EBS_UNWIND_DEPTH'), depth === '0' ? 'auto' : '10');
  }
});

test('the chain never goes above the frame in which the innermost timer started (depth 0 and 10)', async (t) => {
  const exe = compileC('sample_depth', ['sample_depth.c']);
  for (const depth of ['0', '10']) {
    const { result, raws } = await runSampled(exe, ['stop'], { HYPROF_UNWIND_DEPTH: depth });
    t.is(result.code, 0, result.stderr);
    const p = raws[0]!;
    const name = symbolize(p);
    const inner = p.threads[0]!.samples.filter((s) => contextName(p, s.context) === 'inner');
    const n = inner.reduce((k, s) => k + s.count, 0);
    t.true(n > 15, `${n} samples under inner`);
    for (const s of inner) {
      const fns = frames(name, s);
      t.is(fns[fns.length - 1], 'starter', `depth ${depth}: ${fns.join(' < ')}`);
      t.false(fns.includes('outer'), fns.join(' < '));
    }
    const spinning = inner.filter((s) => frames(name, s).slice(-4).join(' ') === 'leaf1 leaf2 leaf3 starter');
    t.true(spinning.reduce((k, s) => k + s.count, 0) > 0.9 * n);
  }
});

test('a function called from two call sites shows both callpaths', async (t) => {
  const exe = compileC('sample_depth', ['sample_depth.c']);
  const { result, raws } = await runSampled(exe, ['sites']);
  t.is(result.code, 0, result.stderr);
  const p = raws[0]!;
  const name = symbolize(p);
  const counts = new Map<string, [number, number]>();
  for (const s of p.threads[0]!.samples) {
    if (contextName(p, s.context) !== 'sites') continue;
    const key = frames(name, s).join(' < ');
    const [n, ns] = counts.get(key) ?? [0, 0];
    counts.set(key, [n + s.count, ns + s.values[0]!]);
  }
  const [one, oneNs] = counts.get('shared < site_one < main') ?? [0, 0];
  const [two, twoNs] = counts.get('shared < site_two < main') ?? [0, 0];
  t.true(one > 10 && two > 10, JSON.stringify([...counts]));
  // both sites spin equally long: their sampled TIME agrees (counts alone vary on a busy machine)
  t.true(Math.abs(oneNs - twoNs) < 0.25 * (oneNs + twoNs), `site_one ${oneNs} ns, site_two ${twoNs} ns`);
});

test('thread entry unknown (runtime loaded by dlopen): stacks end at main, never in libc start-up code', async (t) => {
  const exe = compileC('sample_dlopen', ['sample_dlopen.c'], { link: false, ldflags: ['-ldl'] });
  for (const depth of ['0', '10']) {
    const { result, raws } = await runSampled(exe, [libPath], { HYPROF_UNWIND_DEPTH: depth });
    t.is(result.code, 0, result.stderr);
    const p = raws[0]!;
    const name = symbolize(p);
    const mine = p.threads[0]!.samples.filter((s) => frames(name, s).includes('late_spin'));
    t.true(mine.reduce((k, s) => k + s.count, 0) > 15);
    for (const s of mine) {
      t.deepEqual(contextPath(p, s.context), ['.TAU application']);
      // innermost may be clock_gettime (vDSO) called from late_spin; the outer end is always main
      t.deepEqual(frames(name, s).slice(-3), ['late_spin', 'late_work', 'main'], `depth ${depth}: ${frames(name, s).join(' < ')}`);
    }
  }
});

function attributeOf(p: { info: { attributes: Array<[string, string]> } }, key: string): string | undefined {
  return p.info.attributes.find(([k]) => k === key)?.[1];
}
