/**
 * The viewer as people read it at a glance, in a real browser (Debian's chromium through
 * playwright-core), on a hybrid C profile (TAU's matmult with unwound samples), an OpenMP profile
 * (TAU's OMPT run) and an MPI one (hyprof's resolve of generated ranks): frames are labelled by
 * function name, contexts carry their mark, the TAU node name is one click away, the tree opens
 * along its hottest path, values are in units chosen for their size (or the one the switch
 * forces), and Statistics shows timers apart from sampled code.
 */
import test from 'ava';
import { rmSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { hyprof, tmpDir } from './helpers/native.js';
import { launchBrowser, openPage, startView, tab, type ViewServerProcess } from './helpers/view-browser.js';
import { generateRanks } from './helpers/gen-ranks.js';
import { profileCopy, referenceDir } from './view-fixture.js';
import { formatTime } from '../src/base/units.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { ProfileApi, type NodeInfo } from '../src/view/api.js';

let browser: Browser;
const servers: ViewServerProcess[] = [];
const hybrid = profileCopy('hybrid_callpath_unwind');
let mpiDir = '';

test.before(async () => {
  browser = await launchBrowser();
  const raw = tmpDir('view-labels-raw');
  const files = generateRanks(raw, { ranks: 3, threads: 2, samples: 20 });
  rmSync(files.at(-1)!, { force: true });
  mpiDir = tmpDir('view-labels-mpi');
  const r = await hyprof(['resolve', raw, '-o', mpiDir]);
  if (r.code !== 0) throw new Error(r.stderr);
});
test.after.always(async () => {
  await browser?.close();
  for (const s of servers) s.child.kill('SIGTERM');
});

async function serve(dir: string): Promise<string> {
  const s = await startView([dir]);
  servers.push(s);
  return s.url;
}

/** Every frame of the flame graph: its label, role, drawn text and tooltip. */
async function frames(url: string) {
  const page = await openPage(browser, url);
  await tab(page, 'flame');
  const all = await page.$$eval('#flame g', (gs) =>
    gs.map((g) => ({ label: g.getAttribute('data-label')!, cls: g.getAttribute('class')!, text: g.querySelector('text')!.textContent!, title: g.querySelector('title')!.textContent! })),
  );
  return { page, all };
}

/** The hottest path of the tree as the server answers it: the path of each node the page should open. */
function hottestPath(dir: string): string[] {
  const api = new ProfileApi(readTauProfileDir(dir));
  const out: string[] = [];
  let list = (api.tree(new URLSearchParams({ thread: '0', limit: '2000' })) as { children: NodeInfo[] }).children;
  for (let depth = 0; depth < 40 && list.length > 0; depth++) {
    const n = list.reduce((a, b) => (b.incl > a.incl ? b : a));
    if (n.childCount === 0 || n.incl <= 0) break;
    out.push(n.path);
    list = (api.tree(new URLSearchParams({ thread: '0', path: n.path, limit: '2000' })) as { children: NodeInfo[] }).children;
  }
  return out;
}

test.serial('hybrid C: frames read as function names, contexts are marked, the TAU name is one click away', async (t) => {
  const { page, all } = await frames(await serve(hybrid.dir));
  // Before: `[UNWIND] … [@] main [{…/matmult.c} {…}]` and `[SAMPLE] multiply [{…}]` on the boxes.
  t.true(all.length > 10);
  t.deepEqual(all.filter((f) => /^\[(UNWIND|SAMPLE|CONTEXT)\]/.test(f.label) || /^\[(UNW|SAM|CON)/.test(f.text)), []);
  const multiply = all.find((f) => f.label === 'multiply');
  t.truthy(multiply, all.map((f) => f.label).join(', '));
  t.regex(multiply!.cls, /role-code/);
  t.regex(multiply!.title, new RegExp(`^multiply — sampled code\\n${hybrid.srcDir}/matmult\\.c:13\\nTAU node: \\[SAMPLE\\] multiply \\[\\{`));
  // Timers (hyprof's contexts) carry the mark and their own role.
  const timer = all.find((f) => f.label === 'Iteration 2')!;
  t.regex(timer.cls, /role-timer/);
  t.regex(timer.text, /^◆ Iteration 2|^◆ Iter/);
  // Sampled code is warm, contexts are blue: the fills differ in hue.
  const fill = (sel: string) => page.$eval(sel, (r) => r.getAttribute('fill')!);
  const hue = (rgb: string) => {
    const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
    return b > r ? 'blue' : 'warm';
  };
  t.is(hue(await fill('#flame g.role-timer rect')), 'blue');
  t.is(hue(await fill('#flame g.role-code rect')), 'warm');
  // One click: the frame's TAU node name and its source.
  await page.click('#flame g[data-label="multiply"]');
  await page.waitForSelector('#flame-details .tau-name');
  t.regex((await page.textContent('#flame-details .tau-name'))!, /^TAU node: \[SAMPLE\] multiply \[\{.*matmult\.c\} \{13\}\]$/);
  t.regex((await page.textContent('#flame-details .src-link'))!, /matmult\.c:13$/);
  t.deepEqual(page.errors, []);
  await page.close();
});

test.serial('hybrid C: the tree opens along its hottest path, rows labelled by function with file:line', async (t) => {
  const page = await openPage(browser, await serve(hybrid.dir));
  await tab(page, 'tree');
  const want = hottestPath(hybrid.dir);
  t.true(want.length >= 4, want.join('\n'));
  const open = await page.$$eval('#tab-tree tr[data-open="1"]', (rs) => rs.map((r) => r.getAttribute('data-path')!));
  t.deepEqual(open, want);
  const code = await page.$$eval('#tab-tree tr.role-code td.name', (tds) => tds.map((td) => [td.querySelector('.label')!.textContent, td.querySelector('.where')?.textContent ?? '']));
  t.true(code.length > 0);
  // Code without a source position (UNRESOLVED <module>) has none to show.
  t.true(code.every(([label, where]) => !label!.startsWith('[') && (/^ \S+:\d+$/.test(where!) || (label!.startsWith('UNRESOLVED ') && where === ''))), JSON.stringify(code));
  t.true(code.some(([label, where]) => label === 'multiply' && where === ' matmult.c:13'));
  // A click on a row shows its TAU node name.
  await page.click('#tab-tree tr.role-code');
  t.regex((await page.textContent('#tree-details .tau-name'))!, /^TAU node: \[(SAMPLE|UNWIND)\] /);
  await page.close();
});

test.serial('hybrid C: values in units for their size; the units switch forces one', async (t) => {
  const api = new ProfileApi(readTauProfileDir(hybrid.dir));
  const root = (api.threads(new URLSearchParams({})) as { rows: Array<{ total: number }> }).rows[0].total;
  const page = await openPage(browser, await serve(hybrid.dir));
  const shown = async () => page.textContent('.bars .row[data-thread="0"] .total');
  t.is(await shown(), formatTime(root));
  t.regex((await shown())!, /^\d[\d.]* (s|ms)$/);
  await page.selectOption('#units', 'us');
  await page.waitForSelector('body[data-ready="1"]');
  t.is(await shown(), formatTime(root, 'us'));
  t.regex((await shown())!, / µs$/);
  await page.close();
});

test.serial('OpenMP: OpenMP constructs are marked timers, sampled code plain; Statistics keeps them apart', async (t) => {
  const { page, all } = await frames(await serve(referenceDir('openmp_ompt_full')));
  t.deepEqual(all.filter((f) => /^\[/.test(f.label)), []);
  const region = all.find((f) => f.label.startsWith('OpenMP_Parallel_Region'));
  t.truthy(region);
  t.regex(region!.cls, /role-timer/);
  t.true(region!.text.startsWith('◆'));
  t.true(all.some((f) => f.label === 'work' && /role-code/.test(f.cls)));
  await tab(page, 'table');
  const timers = await page.$$eval('table.stats tbody tr', (trs) => trs.map((tr) => tr.className));
  t.true(timers.length > 0 && timers.every((c) => c.startsWith('kind-timer')));
  await page.click('#table-kind button[data-kind="samples"]');
  await page.waitForSelector('#table-kind button[data-kind="samples"].active');
  const sampled = await page.$$eval('table.stats tbody tr', (trs) => trs.map((tr) => [tr.className, tr.querySelector('td.name')!.textContent]));
  t.true(sampled.length > 0 && sampled.every(([c]) => c!.startsWith('kind-sample')));
  t.true(sampled.some(([, n]) => n === 'work omp_ref.c:3'), JSON.stringify(sampled));
  await page.close();
});

test.serial('MPI: rank threads, function labels and timers in the flame graph of a rank', async (t) => {
  const url = await serve(mpiDir);
  const page = await openPage(browser, url);
  t.true((await page.$$eval('#thread option', (o) => o.map((x) => x.textContent!))).includes('rank 0 · thread 0'));
  await page.selectOption('#thread', '0');
  await tab(page, 'flame');
  const all = await page.$$eval('#flame g', (gs) => gs.map((g) => ({ label: g.getAttribute('data-label')!, cls: g.getAttribute('class')! })));
  t.deepEqual(all.filter((f) => /^\[/.test(f.label)), []);
  t.true(all.some((f) => /role-timer/.test(f.cls)));
  t.true(all.some((f) => /role-code/.test(f.cls)), JSON.stringify(all.slice(0, 20)));
  await tab(page, 'tree');
  t.true((await page.$$('#tab-tree tr[data-open="1"]')).length >= 2);
  await page.close();
});
