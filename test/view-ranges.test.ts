/**
 * Profiles of many ranks, read without holding them: one generated run of 300 ranks (test/helpers/
 * gen-ranks.ts, resolved for real) for the speedscope export written in two walks (the frames, then
 * each thread read again: export-speedscope.ts) and for the viewer. The figures at 16,384 ranks are
 * measured in bench/mpi-scale.ts.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hyprof, tmpDir } from './helpers/native.js';
import { generateRanks } from './helpers/gen-ranks.js';
import { openExportSource } from '../src/export/export-source.js';
import { speedscopePieces, type SpeedscopeFile } from '../src/export/export-speedscope.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

const RANKS = 300;
let dir = '';
test.before(async () => {
  const raw = tmpDir('ranges-raw');
  generateRanks(raw, { ranks: RANKS, threads: 1, samples: 20 });
  dir = tmpDir('ranges');
  const r = await hyprof(['resolve', raw, '-o', dir]);
  if (r.code !== 0) throw new Error(r.stderr);
});

test('speedscope: every thread walked again writes the bytes of every thread kept, and the weights are the threads\' totals', async (t) => {
  const source = openExportSource(dir);
  const kept = [...speedscopePieces(source.profile, {}, '1', source.eventsOf, Infinity)].join('');
  const again = [...speedscopePieces(source.profile, {}, '1', source.eventsOf, 0)].join('');
  t.is(again.length, kept.length);
  t.true(again === kept, 'the same text');
  // and the command writes the same (its default keeps some threads and walks the others again)
  const out = join(tmpDir('ranges-ss'), 's.json');
  const r = await hyprof(['export', dir, '--format', 'speedscope', '-o', out]);
  t.is(r.code, 0, r.stderr);
  const file = readFileSync(out, 'utf8');
  t.is(file.replace(/"exporter":"hyprof [^"]*"/, '"exporter":"hyprof 1"'), kept);
  const s = JSON.parse(file) as SpeedscopeFile;
  t.is(s.profiles.length, RANKS);
  const whole = readTauProfileDir(dir);
  whole.threads[0].forEach((th, i) => {
    const p = s.profiles[i];
    t.is(p.samples.length, p.weights.length);
    const sum = p.weights.reduce((a, b) => a + b, 0);
    t.is(p.endValue, sum);
    const root = th.events.find((e) => e.name === '.TAU application')!;
    t.true(Math.abs(sum - root.incl) <= 1e-6 * root.incl, `rank ${th.node}: ${sum} against ${root.incl}`);
  });
  t.true(s.profiles.every((p) => p.samples.every((stack) => stack.every((f) => f >= 0 && f < s.shared.frames.length))), 'frames in the table');
});
