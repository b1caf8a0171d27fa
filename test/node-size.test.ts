/**
 * The size of a Node profile against `node --cpu-prof`'s file of the same program (issue: "output
 * within 1× of the .cpuprofile"). One formatter-like program (test/native/node_formatter.mjs: deep
 * recursion through getters and methods, nearly every sample a stack of its own) runs once under
 * `--cpu-prof` and once under `hyprof run`. The profile directory (TAU files, stacks file,
 * modules.json) is at most the `.cpuprofile`'s size; the TAU profile's [UNWIND] chains are extended
 * beyond their innermost frame only while they hold 0.5 % of the thread's samples (what
 * keeps them small: TAU names every prefix of a chain by its whole path); and the complete stacks,
 * which the viewer, reports and exports read, are whole: every sample of the TAU profile is in the
 * stacks file, none merged. TAU's strict reader accepts the profile.
 */
import test from 'ava';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { readStacksFiles } from '../src/profile/stacks-file.js';
import { hyprof, testNativeDir, tmpDir } from './helpers/native.js';
import { assertConformant } from './helpers/conformance.js';

const app = join(testNativeDir, 'node_formatter.mjs');
const MS = '2500';
/** The documented rule (docs/assembly.md): a chain grows past its leaf while it holds 0.5 % of the samples. */
const RARE_CHAIN_SHARE = 0.005;

const bytes = (dir: string): number => readdirSync(dir).reduce((a, f) => a + statSync(join(dir, f)).size, 0);

const runs = (async () => {
  const base = tmpDir('node-size');
  const cpuDir = join(base, 'cpuprof');
  const c = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '1000', '--cpu-prof-dir', cpuDir, app, MS], {
    env: { ...process.env, NODE_OPTIONS: '' },
    encoding: 'utf8',
  });
  const out = join(base, 'prof');
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, app, MS], {
    env: { NODE_OPTIONS: undefined, HYPROF_NODE_THREADS: undefined },
    timeoutMs: 120_000,
  });
  return { c, cpuDir, r, out };
})();

test('the profile directory is no larger than the .cpuprofile of the same program', async (t) => {
  const { c, cpuDir, r, out } = await runs;
  t.is(c.status, 0, c.stderr);
  t.is(r.code, 0, r.stderr);
  const cpuprof = bytes(cpuDir);
  const prof = bytes(out);
  t.log(`.cpuprofile ${(cpuprof / 1e6).toFixed(2)} MB, hyprof profile ${(prof / 1e6).toFixed(2)} MB (${readdirSync(out).join(', ')})`);
  t.true(cpuprof > 0);
  t.true(prof <= cpuprof, `profile ${prof} bytes > .cpuprofile ${cpuprof} bytes`);
  assertConformant(out);
});

test("the TAU profile's chains grow past one frame only while they hold 0.5 % of the samples; the stacks file holds every sample", async (t) => {
  const { r, out } = await runs;
  t.is(r.code, 0, r.stderr);
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  const flat = main.events.filter((e) => e.group === 'TAU_SAMPLE');
  const total = flat.reduce((a, e) => a + e.calls, 0);
  t.true(total > 200, `${total} samples`);
  // Each chain ending in its [SAMPLE] leaf keeps the innermost L frames of its samples; it grew past
  // one frame only because the samples of its context whose innermost L frames are these (in chains
  // of L frames or more: its own entry and those extended further) hold the rare share.
  const SPLIT = /\s+=>\s+/;
  const leaves: Array<{ ctx: string; chain: string[]; calls: number }> = [];
  for (const e of main.events) {
    if (!e.group.includes('TAU_UNWIND') || !e.group.includes('TAU_CALLPATH')) continue;
    const parts = e.name.split(SPLIT).map((x) => x.trim());
    if (!parts[parts.length - 1].startsWith('[SAMPLE]')) continue;
    let ci = parts.length - 1;
    while (ci >= 0 && !parts[ci].startsWith('[CONTEXT]')) ci--;
    leaves.push({ ctx: parts.slice(0, ci + 1).join(' => '), chain: parts.slice(ci + 1), calls: e.calls });
  }
  const bySuffix = new Map<string, number>();
  const key = (ctx: string, chain: string[], l: number) => `${ctx}\u0000${chain.slice(-l).join('\u0000')}`;
  for (const { ctx, chain, calls } of leaves) for (let l = 2; l <= chain.length; l++) bySuffix.set(key(ctx, chain, l), (bySuffix.get(key(ctx, chain, l)) ?? 0) + calls);
  const extended = leaves.filter((x) => x.chain.length >= 2);
  t.true(extended.length > 0, 'no chain longer than its leaf');
  const rare = extended.filter(({ ctx, chain }) => bySuffix.get(key(ctx, chain, chain.length))! < RARE_CHAIN_SHARE * total);
  t.is(rare.length, 0, `chains extended with less than ${100 * RARE_CHAIN_SHARE} % of ${total} samples: ${rare.slice(0, 3).map((x) => `${x.chain.length} frames, ${bySuffix.get(key(x.ctx, x.chain, x.chain.length))} samples`).join('; ')}`);
  const meta = new Map(main.metadata);
  t.true(Number(meta.get('hyprof samples in shortened chains')) > 0);
  // the complete stacks: every sample, none merged
  const [stacks] = readStacksFiles(out);
  const thread = stacks.threads.find((x) => x.thread === 0)!;
  t.is(thread.merged, 0);
  t.is(thread.samples.reduce((a, x) => a + x, 0), total);
});
