/**
 * The viewer's Fold view in a real browser (Debian's chromium through playwright-core): a program
 * whose truth is known (test/native/fold_truth.c: a() the first half of each iteration, b_pages()
 * touching fresh pages the second) run with HYPROF_FOLD and page faults as a metric; the stacked
 * area shows a at 20 % and b_pages at 80 % of the synthetic time where the browser draws them, the
 * page-fault rate curve is drawn, the instances' length spread is shown, and the series and time
 * axis can be switched.
 */
import test from 'ava';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { compileC, hyprof, tmpDir } from './helpers/native.js';
import { launchBrowser, openPage, startView, tab, type ViewServerProcess } from './helpers/view-browser.js';

let browser: Browser;
let server: ViewServerProcess;
let empty: ViewServerProcess;

test.before(async () => {
  const exe = compileC('fold_truth_view', ['fold_truth.c'], { cflags: ['-O1', '-g'] });
  const dir = join(tmpDir('view-fold'), 'profile');
  // The wall-clock timer (CPU-time timers fire at the kernel's tick, a few per iteration), the fold
  // taken over CPU_TIME in the page: preemption on a loaded machine moves no sample there.
  const env = { HYPROF_FOLD: 'Iteration *', HYPROF_METRICS: 'TIME:CPU_TIME:page-faults', HYPROF_PERIOD_US: '250' };
  const r = await hyprof(['run', '--dir', dir, '--', exe, '150', '5', 'pages', 'cpu'], { env, timeoutMs: 240_000 });
  if (r.code !== 0) throw new Error(r.stderr);
  // a profile without folds, for the view's message
  const plain = join(tmpDir('view-fold-none'), 'profile');
  const p = await hyprof(['run', '--dir', plain, '--', exe, '3', '1']);
  if (p.code !== 0) throw new Error(p.stderr);
  browser = await launchBrowser();
  server = await startView([dir]);
  empty = await startView([plain]);
});
test.after.always(async () => {
  await browser?.close();
  server?.child.kill('SIGTERM');
  empty?.child.kill('SIGTERM');
});

test.serial('the Fold view: functions stacked over the synthetic time, the page-fault rate, the lengths', async (t) => {
  const page = await openPage(browser, server.url, { requestFailures: true });
  await tab(page, 'fold');
  await page.waitForSelector('.fold-chart');
  t.is(await page.inputValue('#fold-series'), 'Iteration *');
  // the time axis: TIME by default, CPU_TIME to choose
  const axes = await page.$$eval('#fold-axis option', (os) => os.map((o) => (o as HTMLOptionElement).value));
  t.deepEqual(axes, ['TIME', 'CPU_TIME']);
  await page.selectOption('#fold-axis', 'CPU_TIME');
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction(() => document.querySelector('.run-title')?.textContent?.includes('time: CPU_TIME'));
  const cls = '.fold-class[data-class="0"]';
  const fns = await page.$$eval(`${cls} path.fold-area`, (ps) => ps.map((p) => p.getAttribute('data-function')));
  t.true(fns.includes('a') && fns.includes('b_pages'), JSON.stringify(fns));
  // What the browser draws at 20 % and at 80 % of the synthetic time, half-way up the chart (the
  // pale cover of bins with few samples and the rate curves let the pointer through).
  await page.$eval(`${cls} svg.fold-chart`, (svg) => svg.scrollIntoView());
  const at = (frac: number) =>
    page.$eval(
      `${cls} svg.fold-chart`,
      (svg, f) => {
        const r = svg.getBoundingClientRect();
        // plot area: x from 40 to 890 of 900, y from 10 to 230 of 300 (fold.ts)
        const x = r.left + ((40 + 850 * f) / 900) * r.width;
        const y = r.top + ((10 + 110) / 300) * r.height;
        return document.elementFromPoint(x, y)?.getAttribute('data-function') ?? null;
      },
      frac,
    );
  t.is(await at(0.2), 'a');
  t.is(await at(0.8), 'b_pages');
  // the page-fault rate: a curve, low in the first half and high in the second
  const rate = await page.$(`${cls} path.fold-rate[data-metric="page-faults"]`);
  t.truthy(rate);
  const pts = await page.$eval(`${cls} path.fold-rate[data-metric="page-faults"]`, (p) =>
    (p.getAttribute('d') ?? '').split(/[ML]/).filter(Boolean).map((xy) => xy.split(',').map(Number)),
  );
  // a point per bin whose rate is known (bins whose edges had at least 5 samples)
  t.true(pts.length >= 12, JSON.stringify(pts));
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const xAt = (f: number) => 40 + 850 * f;
  const early = pts.filter(([x]) => x < xAt(0.4)).map(([, y]) => y);
  const late = pts.filter(([x]) => x > xAt(0.6)).map(([, y]) => y);
  t.true(early.length > 0 && late.length > 0);
  t.true(mean(early) > mean(late) + 50, `before 40 % at y ${mean(early)}, after 60 % at ${mean(late)} (a higher rate is a lower y)`);
  // the spread of the instances' lengths, and the numbers behind each bin
  t.regex((await page.textContent(`${cls} .fold-lengths`)) ?? '', /^Class 1: \d+ instances, \d+ samples; lengths [\d.]+ \/ [\d.]+ \/ [\d.]+ \/ [\d.]+ \/ [\d.]+ ms/);
  t.truthy(await page.$(`${cls} .fold-spread`));
  t.is((await page.$$(`${cls} table.fold-bins tbody tr`)).length, 20);
  t.regex((await page.textContent(`${cls} table.fold-bins tbody tr[data-from="10"]`)) ?? '', /a \d+%/);
  t.deepEqual(page.errors, []);
  await page.close();
});

test.serial('a profile without folds says how to make one', async (t) => {
  const page = await openPage(browser, empty.url, { requestFailures: true });
  await tab(page, 'fold');
  t.regex((await page.textContent('#tab-fold')) ?? '', /No folds in this profile: run the program with HYPROF_FOLD=<timer>/);
  t.deepEqual(page.errors, []);
  await page.close();
});
