/**
 * The timeline of `hyprof view` in a real browser (chromium through playwright-core) on a trace the
 * OTF2 library wrote: lanes drawn on a canvas from range queries, zoom from the whole run to a few
 * microseconds, hover naming a region with its parameter, message lines, collectives, a task's
 * suspension, sample ticks, and the profile of a selected interval equal to the one OTF2's own Python
 * reader computes from the same archive (test/helpers/otf2-interval.py).
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { repoRoot } from './helpers/native.js';
import { otf2Missing, writeArchive } from './helpers/otf2.js';
import { launchBrowser, openPage, startView, tab, type ViewPage, type ViewServerProcess } from './helpers/view-browser.js';
import { profileCopy } from './view-fixture.js';

const missing = otf2Missing();
if (missing) console.log(`trace tests skipped: ${missing}`);
const maybe = missing ? test.serial.skip : test.serial;

let browser: Browser | undefined;
let view: ViewServerProcess | undefined;
let page: ViewPage;
let dir: string;

test.before(async () => {
  if (missing) return;
  dir = profileCopy('probes').dir;
  writeArchive('run', undefined, dir);
  view = await startView([dir]);
  browser = await launchBrowser();
  page = await openPage(browser, view.url);
});
test.after.always(async () => {
  await browser?.close();
  await view?.stop();
});

const LABEL_W = 150;
const ROW = 15;
const FIRST_LANE_Y = 18;

async function canvasState(): Promise<Record<string, string>> {
  return page.$eval('#timeline', (c) => ({ ...(c as HTMLCanvasElement).dataset }) as Record<string, string>);
}
/** Wait until the canvas shows the answer to the view it asked for. */
async function settled(): Promise<Record<string, string>> {
  await page.waitForFunction(() => {
    const c = document.getElementById('timeline') as HTMLCanvasElement | null;
    return !!c && document.body.dataset.ready === '1' && c.dataset.answered === `${c.dataset.t0},${c.dataset.t1}`;
  });
  return canvasState();
}
/** The page x (in the canvas) of a trace time. */
async function xOf(t: number): Promise<number> {
  const s = await canvasState();
  const box = (await page.$('#timeline'))!;
  const width = (await box.boundingBox())!.width;
  return LABEL_W + ((t - +s.t0) / (+s.t1 - +s.t0)) * (width - LABEL_W);
}

maybe('the Timeline tab draws every lane with messages, collectives, a task suspension and samples at the whole run', async (t) => {
  await tab(page, 'timeline');
  const s = await settled();
  t.deepEqual(page.errors, []);
  // 103 region instances; those below a pixel at this width are merged with their neighbours.
  t.true(+s.blocks >= 50 && +s.blocks <= 103, `blocks ${s.blocks}`);
  t.is(+s.messages, 9, 'message lines');
  t.is(+s.collectives, 6);
  t.is(+s.suspensions, 1);
  t.is(+s.samples, 12);
  t.is(await page.$$eval('#tab-timeline canvas', (c) => c.length), 1, 'one canvas, no element per event');
  t.is(await page.$$eval('#tab-timeline *', (e) => e.length) < 40, true);
});

maybe('hover names the region, its duration and its parameter', async (t) => {
  await tab(page, 'timeline');
  await settled();
  const box = (await (await page.$('#timeline'))!.boundingBox())!;
  // Rank 0, depth 3 at 2 ms: `solve  [ <n> = <512> ]  ` of iteration 0 (1.02 ms to 4.02 ms).
  const x = await xOf(2e6);
  await page.mouse.move(box.x + x, box.y + FIRST_LANE_Y + 3 * ROW + ROW / 2);
  await page.waitForSelector('#timeline-tip:not([hidden])');
  const tip = await page.textContent('#timeline-tip');
  t.regex(tip!, /solve {2}\[ <n> = <512> \]/);
  t.regex(tip!, /3 ms/);
  t.regex(tip!, /n = 512/);
  t.regex(tip!, /sampled: kernel \[\{app\.c\} \{12\}\] ← solve/);
});

maybe('zoom from the whole run to a few microseconds and back, each view answered at its resolution', async (t) => {
  await tab(page, 'timeline');
  const whole = await settled();
  const box = (await (await page.$('#timeline'))!.boundingBox())!;
  const x = await xOf(8.05e6); // rank 0's first send, rank 1's receive
  await page.mouse.move(box.x + x, box.y + FIRST_LANE_Y + 5);
  for (let i = 0; i < 14; i++) await page.mouse.wheel(0, -500);
  const zoomed = await settled();
  const span = +zoomed.t1 - +zoomed.t0;
  t.true(span < 10_000, `span ${span} ns`);
  t.true(span >= 1000);
  t.true(+zoomed.blocks > 0);
  // Pan by dragging: the view moves, its span stays.
  await page.mouse.move(box.x + x, box.y + FIRST_LANE_Y + 5);
  await page.mouse.down();
  await page.mouse.move(box.x + x - 200, box.y + FIRST_LANE_Y + 5, { steps: 4 });
  await page.mouse.up();
  const panned = await settled();
  t.true(+panned.t0 > +zoomed.t0);
  t.true(Math.abs(+panned.t1 - +panned.t0 - span) < 1);
  await page.click('#timeline-whole');
  const back = await settled();
  t.is(back.t0, whole.t0);
  t.is(back.t1, whole.t1);
  t.deepEqual(page.errors, []);
});

maybe('a selected interval shows its profile, equal to the one computed from the archive by OTF2\'s Python reader', async (t) => {
  await tab(page, 'timeline');
  await settled();
  const box = (await (await page.$('#timeline'))!.boundingBox())!;
  const x0 = await xOf(1.5e6);
  const x1 = await xOf(30e6);
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + x0, box.y + FIRST_LANE_Y + 5);
  await page.mouse.down();
  await page.mouse.move(box.x + x1, box.y + FIRST_LANE_Y + 5, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await page.waitForSelector('#selection-table tr[data-name]');
  const sel = await page.$eval('#timeline-selection', (e) => ({ t0: +(e as HTMLElement).dataset.t0!, t1: +(e as HTMLElement).dataset.t1! }));
  t.true(sel.t0 > 1e6 && sel.t1 < 31e6 && sel.t1 - sel.t0 > 20e6);
  const rows = await page.$$eval('#selection-table tr[data-name]', (trs) =>
    trs.map((r) => ({ name: r.getAttribute('data-name')!, excl: +r.getAttribute('data-excl')!, incl: +r.getAttribute('data-incl')!, calls: +r.getAttribute('data-calls')! })),
  );
  const py = spawnSync('/usr/bin/python3', [join(repoRoot, 'test', 'helpers', 'otf2-interval.py'), join(dir, 'traces.otf2'), String(sel.t0), String(sel.t1)], { encoding: 'utf8' });
  t.is(py.status, 0, py.stderr);
  const want = JSON.parse(py.stdout) as { incl: Record<string, number>; excl: Record<string, number>; calls: Record<string, number> };
  const expected = Object.keys(want.incl).filter((n) => want.incl[n] > 0 || (want.calls[n] ?? 0) > 0);
  t.deepEqual(rows.map((r) => r.name).sort(), expected.sort());
  for (const r of rows) {
    t.true(Math.abs(r.excl - want.excl[r.name]) < 1, `${r.name} excl ${r.excl} vs ${want.excl[r.name]}`);
    t.true(Math.abs(r.incl - want.incl[r.name]) < 1, `${r.name} incl ${r.incl} vs ${want.incl[r.name]}`);
    t.is(r.calls, want.calls[r.name] ?? 0, r.name);
  }
  // The flame graph of the selection: its root holds the time of every lane inside the interval.
  const rootValue = await page.$eval('#selection-flame .sf-node[data-name="selection"]', (e) => +(e as HTMLElement).dataset.value!);
  const mainIncl = rows.find((r) => r.name === 'main')!.incl;
  t.true(Math.abs(rootValue - mainIncl - (want.incl['OpenMP_Parallel_Region main [{app.c} {70, 0}]'] ?? 0)) < 1);
  t.deepEqual(page.errors, []);
});

maybe('the findings of report --trace are listed, and the late sender\'s entry zooms to the wait', async (t) => {
  await tab(page, 'timeline');
  await settled();
  await page.click('#timeline-findings summary');
  const link = page.locator('#timeline-findings a', { hasText: /^late sender: 2 ms in 1 call\(s\) on rank 1 at MPI_Recv\(\) in Iteration <n>/ });
  t.is(await link.count(), 1);
  await link.click();
  const s = await settled();
  // The wait: rank 1 entered MPI_Recv at 28 ms, rank 0's send came 2 ms later.
  t.true(+s.t0 < 28e6 && +s.t1 > 30e6 && +s.t1 - +s.t0 < 5e6, `${s.t0}..${s.t1}`);
  t.true(+s.messages >= 1);
  t.deepEqual(page.errors, []);
});
