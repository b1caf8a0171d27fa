/**
 * `hyprof view` in a real browser (Debian's chromium through playwright-core): the page loads a
 * copy of a TAU reference profile, a [CONTEXT] node unfolds under its timer with the file's
 * numbers, source lines of a sample show once its directory is confirmed, and screenshots of the main views are non-blank.
 */
import test from 'ava';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { tmpDir } from './helpers/native.js';
import { launchBrowser, openPage, startView, tab, VIEWPORT, type ViewPage, type ViewServerProcess } from './helpers/view-browser.js';
import { profileCopy, referenceDir, sourceLine } from './view-fixture.js';
import { formatCount, formatTime } from '../src/base/units.js';

/** Width, height and whether the picture has content (not one flat colour). */
function pngFacts(png: Buffer): { width: number; height: number; varied: boolean } {
  t_assert(png.subarray(1, 4).toString() === 'PNG', 'not a PNG');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString();
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  // Count distinct RGB triples over a sample of pixels (filter bytes make this approximate but a
  // blank page still gives a handful at most).
  const colours = new Set<number>();
  const stride = raw.length / height;
  for (let y = 0; y < height; y += 7) {
    const row = raw.subarray(y * stride + 1, (y + 1) * stride);
    for (let x = 0; x + 2 < row.length; x += 3 * 11) colours.add((row[x] << 16) | (row[x + 1] << 8) | row[x + 2]);
  }
  return { width, height, varied: colours.size > 20 };
}
function t_assert(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

const shots = tmpDir('view-shots');
const fx = profileCopy('hybrid_callpath_unwind');
const fileText = readFileSync(join(fx.dir, 'profile.0.0.0'), 'utf8');
const fileValues = (name: string): number[] => {
  const line = fileText.split('\n').find((l) => l.startsWith(`"${name}" `))!;
  return line.slice(name.length + 3).split(' ').slice(0, 4).map(Number);
};
const fmt = (v: number): string => v.toLocaleString('en-US', { maximumFractionDigits: 3 });
// The page writes TIME values in a unit chosen for their size (src/base/units.ts).
const time = (v: number): string => formatTime(v);

let browser: Browser;
let server: ViewServerProcess;

test.before(async () => {
  browser = await launchBrowser();
  server = await startView([fx.dir]);
});
test.after.always(async () => {
  await browser?.close();
  server?.child.kill('SIGTERM');
});

/** A page of the viewer; every failed request counts as an error. */
const open = (url: string): Promise<ViewPage> => openPage(browser, url, { requestFailures: true });

async function shot(page: Page, name: string): Promise<{ width: number; height: number; varied: boolean }> {
  const file = join(shots, `${name}.png`);
  const png = await page.screenshot({ path: file });
  return pngFacts(png);
}

const t2 = test.serial;

t2('the main window shows a bar per thread and statistic', async (t) => {
  const page = await open(server.url);
  t.regex(await page.textContent('#dir') ?? '', /profile$/);
  const rows = await page.$$eval('.bars .row', (rs) => rs.map((r) => r.getAttribute('data-thread')));
  t.deepEqual(rows, ['mean', 'min', 'max', 'std', '0']);
  const total = await page.textContent('.bars .row[data-thread="0"] .total');
  t.is(total, time(fileValues('.TAU application')[3]));
  t.true((await page.$$('.bars .row[data-thread="0"] rect')).length >= 5);
  const facts = await shot(page, 'threads');
  t.deepEqual([facts.width, facts.height], [VIEWPORT.width, VIEWPORT.height]);
  t.true(facts.varied);
  t.deepEqual(page.errors, []);
  t.log(`screenshots in ${shots}`);
  await page.close();
});

t2('a [CONTEXT] node unfolds under its timer with the profile\'s numbers', async (t) => {
  const page = await open(server.url);
  await tab(page, 'tree');
  const path = ['.TAU application', 'main', 'Iteration 2', '[CONTEXT] Iteration 2'];
  // The tree opens along its hottest path; the rest is opened by a click.
  for (let i = 1; i <= path.length; i++) {
    const p = path.slice(0, i).join(' => ');
    const sel = `tr[data-path="${p}"]`;
    await page.waitForSelector(sel);
    if ((await page.getAttribute(sel, 'data-open')) !== '1') await page.click(sel);
    await page.waitForSelector(`${sel}[data-open="1"]`);
  }
  const ctxPath = path.join(' => ');
  const cells = await page.$$eval(`tr[data-path="${ctxPath}"] td.num`, (tds) => tds.map((td) => td.textContent));
  const [calls, , excl, incl] = fileValues('main => Iteration 2  => [CONTEXT]  Iteration 2');
  t.deepEqual(cells.slice(0, 3), [time(incl), time(excl), formatCount(calls)]);
  t.is(await page.getAttribute(`tr[data-path="${ctxPath}"]`, 'class'), 'kind-context role-samples');
  // Its children are the unwound frames and samples, one level deeper.
  const kids = await page.$$eval(`tr[data-depth="4"][data-path^="${ctxPath} => "]`, (rs) => rs.map((r) => [r.className, r.getAttribute('data-path')]));
  t.true(kids.length > 0);
  t.true(kids.every(([cls, p]) => (cls === 'kind-unwind role-code' || cls === 'kind-sample role-code') && p!.startsWith(`${ctxPath} => `)));
  // Timer values too.
  const it2 = await page.$$eval(`tr[data-path=".TAU application => main => Iteration 2"] td.num`, (tds) => tds.map((td) => td.textContent));
  t.deepEqual(it2.slice(0, 3), [time(fileValues('main => Iteration 2')[3]), time(fileValues('main => Iteration 2')[2]), '1']);
  const facts = await shot(page, 'tree');
  t.true(facts.varied);
  await page.close();
});

t2('source lines of a sample show once the user confirms the run\'s directory in the panel', async (t) => {
  const page = await open(server.url);
  await tab(page, 'tree');
  await page.fill('#search', '[SAMPLE] add');
  await page.waitForSelector('.results div[title]');
  await page.click('.results div[title]');
  const target = await page.waitForSelector('tr.kind-sample[style*="outline"]');
  t.regex((await target.getAttribute('data-path'))!, /\[SAMPLE\] add \[\{.*matmult\.c\} \{14\}\]$/);
  await target.$eval('.src-link', (e) => (e as HTMLElement).click());
  // Not shown before the user says so: the panel offers the directory (the profile's run directory).
  const button = await page.waitForSelector('#source .confirm-dir button');
  t.is(await button.getAttribute('data-dir'), fx.srcDir);
  t.regex((await page.textContent('#source'))!, /source not shown: .*not under a directory you named \(none yet\)/);
  t.is(await page.$('#source .hot'), null);
  await button.click();
  await page.waitForSelector('#source .hot');
  t.is(await page.getAttribute('#source .hot', 'data-line'), '14');
  t.is((await page.textContent('#source .hot'))!.trim(), `14${sourceLine(14)}`);
  const facts = await shot(page, 'source');
  t.true(facts.varied);
  await page.close();
});

t2('the statistics table and flame graph show the same numbers', async (t) => {
  const page = await open(server.url);
  await tab(page, 'table');
  // Timers by default; the sampled lines on their own switch.
  const kinds = await page.$$eval('table.stats tbody tr', (trs) => trs.map((tr) => tr.className));
  t.true(kinds.length > 0 && kinds.every((k) => k.startsWith('kind-timer')), kinds.join(' '));
  await page.click('#table-kind button[data-kind="samples"]');
  await page.waitForSelector('#table-kind button[data-kind="samples"].active');
  const first = await page.$eval('table.stats tbody tr', (tr) => [tr.getAttribute('data-name'), tr.querySelector('td.excl')!.getAttribute('data-value'), tr.querySelector('td.name')!.textContent]);
  t.deepEqual(first, [`[SAMPLE] multiply [{${fx.srcDir}/matmult.c} {13}]`, String(fileValues(`[SAMPLE] multiply [{${fx.srcDir}/matmult.c} {13}]`)[2]), 'multiply matmult.c:13']);
  await page.click('table.stats th[data-sort="name"]');
  await page.waitForSelector('body[data-ready="1"]');
  t.true((await shot(page, 'table')).varied);
  await tab(page, 'flame');
  // The timer's own [CONTEXT] is no frame (as in every export): its sampled code hangs under the timer.
  const ctx = '.TAU application => main => Iteration 2 => [CONTEXT] Iteration 2';
  t.is(await page.$(`#flame g[data-path="${ctx}"]`), null);
  const w = async (p: string): Promise<number> => Number(await page.getAttribute(`#flame g[data-path="${p}"] rect`, 'width'));
  const sampledWidth = async (): Promise<number> =>
    page.$$eval(`#flame g[data-path^="${ctx} => "]`, (gs) => gs.filter((g) => g.getAttribute('data-path')!.split(' => ').length === 5).reduce((s, g) => s + Number(g.querySelector('rect')!.getAttribute('width')), 0));
  const [wCtx, wTimer, wRoot] = [await sampledWidth(), await w('.TAU application => main => Iteration 2'), await w('.TAU application')];
  t.true(wCtx > 0 && wCtx <= wTimer + 0.01 && wTimer < wRoot, `${wCtx} ${wTimer} ${wRoot}`);
  t.true((await shot(page, 'flame')).varied);
  await tab(page, 'metadata');
  t.is(await page.textContent('#tab-metadata tr[data-name="Metric Name"] td.value'), 'TIME');
  await tab(page, 'flame');
  // Zoom into the timer: its context fills (almost) the width.
  await page.click(`#flame g[data-path=".TAU application => main => Iteration 2"]`);
  t.true((await sampledWidth()) > 0.9 * VIEWPORT.width * 0.9);
  await page.close();
});

t2('several metrics and threads: metric and thread selectors', async (t) => {
  const root = tmpDir('view-multi');
  const src = readFileSync(join(referenceDir('openmp_ompt_full'), 'profile.0.0.0'), 'utf8');
  const src1 = readFileSync(join(referenceDir('openmp_ompt_full'), 'profile.0.0.1'), 'utf8');
  for (const metric of ['TIME', 'CPU_TIME']) {
    const d = join(root, `MULTI__${metric}`);
    mkdirSync(d);
    for (const [f, text] of [['profile.0.0.0', src], ['profile.0.0.1', src1]]) {
      writeFileSync(join(d, f), text.replace('<name>Metric Name</name><value>TIME</value>', `<name>Metric Name</name><value>${metric}</value>`));
    }
  }
  const multi = await startView([root]);
  try {
    const page = await open(multi.url);
    t.false(await page.isHidden('#metric-box'));
    // TIME first, as TAU's tools show it; the others by name.
    t.deepEqual(await page.$$eval('#metric option', (o) => o.map((x) => x.textContent)), ['TIME', 'CPU_TIME']);
    t.deepEqual(await page.$$eval('#thread option', (o) => o.map((x) => x.textContent)), ['mean', 'min', 'max', 'std', 'n,c,t 0,0,0', 'n,c,t 0,0,1']);
    t.deepEqual(await page.$$eval('.bars .row', (rs) => rs.map((r) => r.getAttribute('data-thread'))), ['mean', 'min', 'max', 'std', '0', '1']);
    await page.selectOption('#metric', '1');
    await page.waitForSelector('body[data-ready="1"]');
    t.regex((await page.textContent('#tab-threads .controls'))!, /2 threads, metric CPU_TIME/);
    // Clicking a thread's bar opens its statistics.
    await page.click('.bars .row[data-thread="1"]');
    await page.waitForSelector('#tab-table:not([hidden]) table.stats');
    t.is(await page.inputValue('#thread'), '1');
    t.true((await shot(page, 'multi-table')).varied);
    await page.close();
  } finally {
    multi.child.kill('SIGTERM');
  }
});

t2('250 threads page by 100 in the main window; a bar opens its thread', async (t) => {
  const dir = tmpDir('view-250');
  const text = readFileSync(join(referenceDir('probes'), 'profile.0.0.0'), 'utf8');
  for (let i = 0; i < 250; i++) writeFileSync(join(dir, `profile.0.0.${i}`), text);
  const many = await startView([dir]);
  try {
    const page = await open(many.url);
    t.is(await page.textContent('.pager span'), 'threads 1–100 of 250');
    t.is((await page.$$('.bars .row')).length, 4 + 100);
    await page.click('.pager button:last-child');
    await page.waitForFunction(() => document.querySelector('.pager span')?.textContent === 'threads 101–200 of 250');
    t.is(await page.getAttribute('.bars .row:not(.stat)', 'data-thread'), '100');
    t.true((await shot(page, 'threads-250')).varied);
    await page.click('.bars .row[data-thread="150"]');
    await page.waitForSelector('#tab-table:not([hidden]) table.stats');
    t.is(await page.inputValue('#thread'), '150');
    const main = await page.getAttribute('#tab-table tr[data-name="main"] td.excl', 'data-value');
    t.is(main, text.split('\n').find((l) => l.startsWith('"main" '))!.split(' ')[3]);
    await page.close();
  } finally {
    many.child.kill('SIGTERM');
  }
});

t2('search highlights matching frames in the flame graph', async (t) => {
  const page = await open(server.url);
  await tab(page, 'flame');
  await page.fill('#search', 'multiply [');
  await page.waitForFunction(() => document.querySelectorAll('#flame g.hit').length > 0);
  const hits = await page.$$eval('#flame g.hit', (gs) => gs.map((g) => g.getAttribute('data-path')!));
  t.true(hits.length > 0);
  t.true(hits.every((p) => /\[SAMPLE\] multiply \[|matrixMultiply \[/i.test(p.split(' => ').at(-1)!)));
  t.true((await shot(page, 'flame-search')).varied);
  await page.close();
});
