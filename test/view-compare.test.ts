/**
 * The viewer's compare mode in a real browser (Debian's chromium through playwright-core), on two
 * real runs of a program whose second run does twice the work in one function
 * (helpers/compare-runs.ts): the difference table and the differential flame graph point at that
 * function with the right sign and a ratio near 2; the thread bars of both runs carry the thread
 * names and units; the event-on-threads window, the user events, and a run opened from the page.
 * Screenshots are written for a person to look at (their directory is printed).
 */
import test from 'ava';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { tmpDir } from './helpers/native.js';
import { compareRuns } from './helpers/compare-runs.js';
import { launchBrowser, openPage, startView, tab, type ViewPage } from './helpers/view-browser.js';

const shots = tmpDir('compare-shots');

let browser: Browser;
const servers: ChildProcess[] = [];

test.before(async () => {
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  for (const s of servers) s.kill('SIGTERM');
});

const open = (url: string): Promise<ViewPage> => openPage(browser, url);

/** Elements whose text is cut (wider content than box). */
async function cut(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (es) => es.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent ?? ''));
}

const serial = test.serial;

serial('hyprof view A B: both runs side by side, the difference points at the slower function', async (t) => {
  const { a, b } = await compareRuns();
  const server = await startView([a, b, '--port', '0']);
  servers.push(server.child);
  const page = await open(server.url);
  t.regex((await page.textContent('#runs')) ?? '', /^A: .*run-a {2}vs {2}B: .*run-b$/);

  // Thread bars of both runs, with the names the program gave its threads, totals with units.
  const labels = async (run: string) => page.$$eval(`#bars-${run} .row .label`, (ls) => ls.map((l) => l.textContent));
  for (const run of ['a', 'b']) {
    t.deepEqual(await labels(run), ['mean', 'min', 'max', 'std', 'n,c,t 0,0,0', 'n,c,t 0,0,1 "compare-io"', 'n,c,t 0,0,2 "compare-calc"']);
    t.regex((await page.textContent(`#bars-${run} .row[data-thread="0"] .total`)) ?? '', /^[\d,.]+ (ns|µs|ms|s)$/);
  }
  t.regex((await page.textContent('#bars-a .controls')) ?? '', /metric TIME, exclusive values in ns, µs, ms or s by size/);
  t.deepEqual(await cut(page, '.bars .label, .bars .total, .legend span'), []);
  await page.screenshot({ path: join(shots, 'compare-threads.png'), fullPage: true });

  // The statistics table of both runs, with the change.
  await tab(page, 'table');
  const heads = await page.$$eval('table.diff-events th', (ths) => ths.map((th) => th.textContent));
  t.deepEqual(heads.slice(0, 5), ['Event', 'A', 'B', 'B − A', 'B / A']);
  const fnRow = page.locator('table.diff-functions tr[data-name="scaled_work"][data-context=""]');
  const ratio = Number(await fnRow.locator('td.ratio').getAttribute('data-value'));
  const delta = Number(await fnRow.locator('td.delta').getAttribute('data-value'));
  t.log(`viewer: sampled scaled_work B/A ${ratio.toFixed(2)}, change ${delta.toFixed(0)} µs`);
  t.true(ratio > 1.5 && ratio < 2.7, `ratio ${ratio}`);
  t.true(delta > 0);
  t.regex((await fnRow.locator('td.delta').getAttribute('class')) ?? '', /worse/);
  t.regex((await fnRow.locator('td.ratio').textContent()) ?? '', /^[12]\.\d\d×$/);
  // The first row of the functions over all contexts is the slower function.
  t.is(await page.$eval('table.diff-functions tr[data-context=""]', (tr) => tr.getAttribute('data-name')), 'scaled_work');
  const steady = Number(await page.locator('table.diff-functions tr[data-name="steady_work"][data-context=""] td.ratio').getAttribute('data-value'));
  t.true(steady > 0.7 && steady < 1.4, `steady ratio ${steady}`);
  // Its change is within the sampling error: grey and marked noise; the slower function's is not.
  const steadyRow = 'table.diff-functions tr[data-name="steady_work"][data-context=""]';
  t.regex((await page.getAttribute(steadyRow, 'class')) ?? '', /noise/);
  t.regex((await page.textContent(`${steadyRow} td.error`)) ?? '', /^±[\d.,]+ (ns|µs|ms|s) noise$/);
  t.notRegex((await fnRow.getAttribute('class')) ?? '', /noise/);
  t.regex((await fnRow.locator('td.error').textContent()) ?? '', /^±[\d.,]+ (ns|µs|ms|s)$/);
  // Per line inside one iteration's context.
  const lineRows = await page.$$eval('table.diff-lines tbody tr', (rs) =>
    rs.map((r) => [r.getAttribute('data-context'), r.getAttribute('data-name'), r.querySelector('td.ratio')!.getAttribute('data-value')]),
  );
  const inIt2 = lineRows.find(([c, n]) => /Iteration 2 => scaled_work$/.test(c!) && n!.startsWith('scaled_work ['));
  t.truthy(inIt2, JSON.stringify(lineRows.slice(0, 5)));
  t.true(Number(inIt2![2]) > 1.4 && Number(inIt2![2]) < 2.9, `B/A of ${inIt2![1]} in ${inIt2![0]}: ${inIt2![2]}`);
  await page.screenshot({ path: join(shots, 'compare-table.png') });

  // The differential flame graph: widths of run B, each frame with its run-A width; red when wider.
  await tab(page, 'flame');
  const frames = await page.$$eval('#flame g', (gs) =>
    gs.map((g) => ({ path: g.getAttribute('data-path')!, value: Number(g.getAttribute('data-value')), other: Number(g.getAttribute('data-other')), fill: g.querySelector('rect')!.getAttribute('fill')! })),
  );
  const sample = frames.find((f) => /Iteration 3 => scaled_work => \[CONTEXT\] scaled_work => \[SAMPLE\] scaled_work \[/.test(f.path))!;
  t.truthy(sample, frames.map((f) => f.path).join('\n'));
  t.log(`flame: ${sample.path.split(' => ').slice(-1)[0]} B ${sample.value.toFixed(0)} / A ${sample.other.toFixed(0)}`);
  // One iteration's line holds about 10 samples a side: its ratio is 2 give or take ~40 % (diff's error).
  t.true(sample.value / sample.other > 1.3 && sample.value / sample.other < 3.5, `${sample.value / sample.other}`);
  const rgb = /rgb\((\d+), (\d+), (\d+)\)/.exec(sample.fill)!.slice(1).map(Number);
  t.true(rgb[0] > rgb[1] + 40, `a slower frame is red: ${sample.fill}`);
  t.regex((await page.textContent('#tab-flame .controls')) ?? '', /widths from run B \(run B total [\d,.]+ (ns|µs|ms|s), run A [\d,.]+ (ns|µs|ms|s)\)/);
  await page.screenshot({ path: join(shots, 'compare-flame.png') });
  // Widths from run A: the same frame, the values swapped, still red (B is the slower run).
  await page.selectOption('#width-from', 'a');
  // The caption, not the <select>: its options always hold both texts.
  await page.waitForFunction(() => document.querySelector('#tab-flame .controls')?.textContent?.includes('Differential flame graph: widths from run A'));
  const fromA = await page.$eval(`#flame g[data-path="${sample.path.replace(/"/g, '\\"')}"]`, (g) => [Number(g.getAttribute('data-value')), Number(g.getAttribute('data-other')), g.querySelector('rect')!.getAttribute('fill')!] as const);
  t.deepEqual([fromA[0], fromA[1]], [sample.other, sample.value]);
  t.is(fromA[2], sample.fill);
  t.deepEqual(page.errors, []);
});

serial('the event-on-threads window and the user events of a run', async (t) => {
  const { a } = await compareRuns();
  const server = await startView([a, '--port', '0']);
  servers.push(server.child);
  const page = await open(server.url);
  await tab(page, 'event');
  await page.selectOption('#event-pick', 'timer\u0000calc_work');
  await page.waitForFunction(() => document.querySelector('#event-title')?.textContent?.includes('"calc_work"'));
  await page.waitForSelector('body[data-ready="1"]');
  t.is(await page.textContent('#event-title'), 'Timer "calc_work": exclusive TIME in ns, µs, ms or s by size, on 3 threads (1 with it)');
  const rows = await page.$$eval('.event-bars .row', (rs) => rs.map((r) => [r.querySelector('.label')!.textContent, r.getAttribute('data-value')]));
  t.deepEqual(rows.map((r) => r[0]), ['mean', 'n,c,t 0,0,0', 'n,c,t 0,0,1 "compare-io"', 'n,c,t 0,0,2 "compare-calc"']);
  const v = Number(rows[3][1]);
  t.true(v > 0);
  t.is(rows[1][1], '');
  t.is(Number(rows[0][1]), v / 3);
  t.is(Number(await page.getAttribute('.spread tr[data-stat="max"] td.num', 'data-value')), v);
  t.regex((await page.textContent('.spread tr[data-stat="std"] td.num')) ?? '', / (ns|µs|ms|s)$/);
  t.deepEqual(await cut(page, '.event-bars .label, .event-bars .total'), []);
  await page.screenshot({ path: join(shots, 'event.png') });
  // A sampled function.
  await page.selectOption('#event-pick', 'function\u0000io_thread');
  await page.waitForFunction(() => document.querySelector('#event-title')?.textContent?.startsWith('Sampled function "io_thread"'));
  t.true(Number(await page.getAttribute('.event-bars .row[data-thread="1"]', 'data-value')) > 0);

  await tab(page, 'userevents');
  const cells = await page.$$eval('table.user-thread tr[data-name="bytes moved"] td.num', (tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
  t.deepEqual(cells.slice(0, 4), [3, 1024, 3072, 2048]);
  t.true(Math.abs(cells[4] - 836.092) < 0.01);
  t.regex((await page.textContent('table.user-across tr[data-name="bytes moved"]')) ?? '', /^bytes moved1/);
  await page.selectOption('#thread', '1');
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction(() => document.querySelector('#tab-userevents .controls')?.textContent?.includes('compare-io'));
  t.is(await page.$$eval('table.user-thread tbody tr', (rs) => rs.length), 0);
  await page.screenshot({ path: join(shots, 'userevents.png') });
  t.deepEqual(page.errors, []);
});

serial('a second run opened from the page: compare mode; a bad directory is refused with its message', async (t) => {
  const { a, b } = await compareRuns();
  const server = await startView([a, '--port', '0']);
  servers.push(server.child);
  // Not from the page (no header a cross-site request could send without asking): refused.
  const res = await fetch(`${server.url}api/open?dir=${encodeURIComponent(b)}`, { method: 'POST' });
  t.is(res.status, 403);
  const page = await open(server.url);
  t.true(await page.isHidden('#runs'));
  await page.fill('#compare-dir', join(b, 'nope'));
  await page.click('#compare-form button');
  await page.waitForSelector('#error:not([hidden])');
  t.is(await page.textContent('#error'), `${join(b, 'nope')}: no such directory`);
  await page.fill('#compare-dir', b);
  await page.click('#compare-form button');
  await page.waitForSelector('#runs:not([hidden])');
  await page.waitForSelector('table.diff-functions');
  t.truthy(await page.$('table.diff-functions tr[data-name="scaled_work"][data-context=""]'));
  t.log(`screenshots in ${shots}`);
});
