/**
 * `hyprof view` on the profile of an MPI run: threads are labelled by rank, the header says how many
 * ranks of the run are there, and a rank that wrote nothing is said on the page. The API is checked
 * directly, and the page once in a real browser (Debian's chromium through playwright-core).
 */
import test from 'ava';
import { rmSync } from 'node:fs';
import { hyprof, tmpDir } from './helpers/native.js';
import { launchBrowser, openPage, startView } from './helpers/view-browser.js';
import { generateRanks } from './helpers/gen-ranks.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { ProfileApi } from '../src/view/api.js';

let dir = '';
test.before(async () => {
  const raw = tmpDir('mpi-view-raw');
  const files = generateRanks(raw, { ranks: 4, threads: 2, samples: 10 });
  rmSync(files[2]); // rank 2 wrote nothing
  dir = tmpDir('mpi-view');
  const r = await hyprof(['resolve', raw, '-o', dir]);
  if (r.code !== 0) throw new Error(r.stderr);
});

test('the API labels threads by rank and says which rank of the run is missing', (t) => {
  const api = new ProfileApi(readTauProfileDir(dir));
  const s = api.summary() as { ranks?: { count: number; worldSize?: number; notes: string[] } };
  t.is(s.ranks?.count, 3);
  t.is(s.ranks?.worldSize, 4);
  t.true(s.ranks!.notes.some((n) => /^rank 2 of 4 wrote no measurements/.test(n)), s.ranks!.notes.join('\n'));
  const rows = (api.threads(new URLSearchParams({ limit: '10' })) as { rows: Array<{ label: string }> }).rows.map((r) => r.label);
  // The generated workers carry a thread name (as the runtime records OpenMP workers): shown beside the rank.
  const w = ' "OpenMP worker 1"';
  t.deepEqual(rows, ['rank 0 · thread 0', `rank 0 · thread 1${w}`, 'rank 1 · thread 0', `rank 1 · thread 1${w}`, 'rank 3 · thread 0', `rank 3 · thread 1${w}`]);
});

test('the page shows the ranks and the missing one', async (t) => {
  const view = await startView([dir]);
  const browser = await launchBrowser();
  try {
    const page = await openPage(browser, view.url);
    t.is(await page.textContent('#ranks'), '3 ranks of 4');
    t.regex((await page.textContent('#notes')) ?? '', /rank 2 of 4 wrote no measurements/);
    t.false(await page.isHidden('#notes'));
    const options = await page.$$eval('#thread option', (o) => o.map((x) => x.textContent));
    t.true(options.includes('rank 3 · thread 1 "OpenMP worker 1"'), options.join(', '));
    t.deepEqual(page.errors, []);
  } finally {
    await browser.close();
    view.child.kill('SIGTERM');
  }
});
