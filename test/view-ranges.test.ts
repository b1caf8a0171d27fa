/**
 * Profiles of many ranks, read without holding them: one generated run of 300 ranks (test/helpers/
 * gen-ranks.ts, resolved for real) for the speedscope export written in two walks (the frames, then
 * each thread read again: export-speedscope.ts) and for the viewer of many threads (scaled-profile.ts:
 * the statistics folded file by file, rank ranges in the main window, a thread read when it is
 * opened), checked against the viewer holding the whole profile, and once in a real browser. The
 * figures at 1,024 and 16,384 ranks are measured in bench/mpi-scale.ts.
 */
import test from 'ava';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hyprof, tmpDir } from './helpers/native.js';
import { generateRanks } from './helpers/gen-ranks.js';
import { openExportSource } from '../src/export/export-source.js';
import { speedscopePieces, type SpeedscopeFile } from '../src/export/export-speedscope.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { ProfileApi } from '../src/view/api.js';
import { QUANTILE_ACCURACY, ScaledProfile } from '../src/view/scaled-profile.js';
import { displayName } from '../src/profile/tau-model.js';
import { writeStacksFile, type StacksFile } from '../src/profile/stacks-file.js';
import { launchBrowser, openPage } from './helpers/view-browser.js';
import { startView } from './helpers/view-server.js';

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

const q = (o: Record<string, string> = {}) => new URLSearchParams(o);

test('viewer of many threads: the same answers as the profile held whole, ranks in ranges, a thread read when opened', (t) => {
  const whole = new ProfileApi(readTauProfileDir(dir));
  const scaled = new ScaledProfile(dir);
  const api = new ProfileApi(scaled.profile, [], scaled);
  t.true(scaled.profile.threads[0].every((th) => th.events.length === 0), 'no thread\'s events held after opening');
  const { ranges, ...summary } = api.summary() as Record<string, unknown>;
  t.true(ranges);
  t.deepEqual(summary, whole.summary());
  t.regex(String((summary.ranks as { mpiShare?: string }).mpiShare), /MPI/);
  // statistics over threads, and one thread (read from its file) in every view
  for (const thread of ['mean', 'max', 'std', '7', '299']) {
    for (const view of ['table', 'tree', 'flame', 'functions', 'userEvents', 'metadata'] as const) {
      const o = { thread, ...(view === 'table' ? { paths: '1', limit: '2000' } : {}) };
      t.deepEqual(api[view](q(o)), whole[view](q(o)), `${view} of ${thread}`);
    }
  }
  t.true(scaled.profile.threads[0].every((th) => th.events.length === 0), 'threads are read for the page, not kept in the profile');
  t.deepEqual(api.event(q()), whole.event(q()));
  t.deepEqual(api.event(q({ name: 'compute_flux' })), whole.event(q({ name: 'compute_flux' })));
  // asked again (the page redrawn), the event on threads is answered without reading the 300 files
  const reads = scaled.reads;
  t.deepEqual(api.event(q({ name: 'compute_flux' })), whole.event(q({ name: 'compute_flux' })));
  t.is(scaled.reads, reads, 'no thread file read again');
  api.event(q({ name: 'solve' }));
  t.is(scaled.reads, reads + 300, 'another event reads every thread');
  // the main window: a page of threads (read for it), and the ranges
  const a = api.threads(q({ offset: '100', limit: '50' })) as { rows: unknown[]; stats: unknown[]; ranges: Ranges };
  const b = whole.threads(q({ offset: '100', limit: '50' })) as { rows: unknown[]; stats: unknown[] };
  t.deepEqual(a.rows, b.rows);
  t.deepEqual(a.stats, b.stats);
  const labels = api.threads(q({ limit: '1000', labels: '1' })) as { rows: Array<Record<string, unknown>> };
  t.deepEqual(Object.keys(labels.rows[299]), ['key', 'label']);
  t.is(a.ranges.block, 5); // 300 ranks in at most 64 blocks: 60 blocks of 5
  t.is(a.ranges.blocks.length, 60);
  t.is(a.ranges.blocks[1].label, 'ranks 5–9');
  t.true(a.ranges.timers.includes('compute_flux'));
  const held = readTauProfileDir(dir).threads[0];
  const flux = (i: number) => held[i].events.find((e) => displayName(e.name) === 'compute_flux')!.excl;
  const r = (api.threads(q({ timer: 'compute_flux' })) as { ranges: Ranges }).ranges;
  for (const blk of [r.blocks[0], r.blocks[37], r.blocks[59]]) {
    const v = Array.from({ length: blk.last - blk.first + 1 }, (_, k) => flux(blk.first + k));
    t.is(blk.chosen.min, Math.min(...v));
    t.is(blk.chosen.max, Math.max(...v));
    t.true(Math.abs(blk.chosen.mean - v.reduce((x, y) => x + y, 0) / v.length) < 1e-9 * blk.chosen.mean);
    // quartiles: the value of rank q × (n − 1), rounded down, within the sketch's relative accuracy
    const sorted = [...v].sort((x, y) => x - y);
    for (const [q, key] of [[0.25, 'q1'], [0.5, 'median'], [0.75, 'q3']] as const) {
      const exact = sorted[Math.floor(q * (sorted.length - 1))];
      t.true(Math.abs(blk.chosen[key] - exact) <= QUANTILE_ACCURACY * exact, `block ${blk.first}: ${key} ${blk.chosen[key]} against ${exact}`);
    }
    t.true(blk.chosen.min <= blk.chosen.q1 && blk.chosen.q1 <= blk.chosen.median && blk.chosen.median <= blk.chosen.q3 && blk.chosen.q3 <= blk.chosen.max);
    // the generated ranks compute longer the higher the rank
    t.is(blk.chosen.maxLabel, `rank ${held[blk.first + v.indexOf(Math.max(...v))].node} · thread 0`);
  }
  // the totals: a block's bar is its threads' mean total
  const total = (i: number) => held[i].events.filter((e) => !e.name.includes('=>') && !/\[(CONTEXT|SAMPLE|UNWIND)\]/.test(e.name) && e.group !== 'TAU_PARAM').reduce((x, e) => x + e.excl, 0);
  const blk = a.ranges.blocks[10];
  const mean = Array.from({ length: 5 }, (_, k) => total(blk.first + k)).reduce((x, y) => x + y, 0) / 5;
  t.true(Math.abs(blk.total - mean) < 1e-9 * mean, `${blk.total} against ${mean}`);
  t.throws(() => api.threads(q({ timer: 'no such timer' })), { message: /no flat event "no such timer"/ });
});

test('viewer of many threads: complete stacks are read with their thread, not held, and their source files may be shown', (t) => {
  // Four ranks of the generated run, two of them with a stacks file as a sampled run writes them.
  const root = tmpDir('ranges-stacks');
  const small = join(root, 'profile');
  const src = join(root, 'src');
  mkdirSync(small);
  mkdirSync(src);
  for (let r = 0; r < 4; r++) copyFileSync(join(dir, `profile.${r}.0.0`), join(small, `profile.${r}.0.0`));
  const solver = join(src, 'solver.c');
  writeFileSync(solver, Array.from({ length: 40 }, (_, i) => `/* line ${i + 1} */`).join('\n') + '\n');
  for (const r of [1, 3]) {
    const file = {
      format: 'hyprof-stacks', version: 1, node: r, context: 0, metrics: ['TIME'],
      frames: [['main', solver, 3, '/bin/solver'], ['relax', solver, 20 + r, '/bin/solver'], ['norm', solver, 30, '/bin/solver']],
      threads: [{ thread: 0, contexts: ['.TAU application => main => Iteration 7 => solve => exchange_halo => MPI_Waitall()  => [CONTEXT] MPI_Waitall()'], parent: [-1, 0, 0], frame: [0, 1, 2], samples: [0, 5 + r, 2], values: [[0, 5000 + r, 2000]], merged: 0 }],
    };
    // rank 1's as hyprof writes it (gzip), rank 3's as an older hyprof did (plain JSON)
    if (r === 1) writeStacksFile(small, file as StacksFile);
    else writeFileSync(join(small, `stacks.${r}.0.json`), JSON.stringify(file));
  }
  const whole = new ProfileApi(readTauProfileDir(small), [src]);
  const scaled = new ScaledProfile(small);
  const api = new ProfileApi(scaled.profile, [src], scaled);
  t.true(scaled.profile.threads[0].every((th) => th.stacks === undefined), 'no stacks held after opening');
  for (const thread of ['0', '1', '3', 'mean']) t.deepEqual(api.flame(q({ thread })), whole.flame(q({ thread })), `flame graph of ${thread}`);
  const flame = JSON.stringify(api.flame(q({ thread: '3' })));
  t.true(flame.includes('relax'), 'the stacks file\'s frames are in the flame graph of its thread');
  t.deepEqual(api.source(q({ file: solver, line: '23' })), whole.source(q({ file: solver, line: '23' })));
});

interface Ranges {
  block: number;
  timers: string[];
  blocks: Array<{ first: number; last: number; label: string; total: number; chosen: { min: number; q1: number; median: number; q3: number; max: number; mean: number; maxLabel?: string } }>;
}

test('the page shows the ranges and a click on one shows its threads', async (t) => {
  const view = await startView([dir, '--ranges-above', '100']);
  const browser = await launchBrowser();
  try {
    const page = await openPage(browser, view.url);
    t.is(await page.locator('#ranges .row.range').count(), 60);
    t.is(await page.textContent('#ranges .row.range:nth-child(2) .label'), 'ranks 5–9');
    // a box plot per range: min · Q1 · median · Q3 · max beside it, the box drawn
    t.is(await page.locator('#ranges .row.range rect.quartiles').count(), 60);
    t.is((await page.textContent('#ranges .row.range:nth-child(2) .total'))!.split(' · ').length, 5);
    await page.click('#ranges .row.range[data-first="185"]');
    await page.waitForSelector('.row[data-thread="185"]');
    t.is(await page.textContent('.row[data-thread="185"] .label'), 'rank 185 · thread 0');
    t.deepEqual(page.errors, []);
  } finally {
    await browser.close();
    view.child.kill('SIGTERM');
  }
});
