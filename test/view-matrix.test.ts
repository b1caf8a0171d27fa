/**
 * The viewer's communication matrix (the Comm matrix tab, /api/matrix): a real run of 4 Open MPI
 * ranks with HYPROF_COMM_MATRIX=1 (test/native/mpi_matrix.c: a ring, an all-to-all and the rooted
 * collectives, whose volumes test/mpi-matrix.test.ts checks exactly) drawn as a heat map in
 * chromium, cell by cell the pairs `hyprof report --mpi --matrix --json` gives; the tab is hidden
 * for a profile that is not an MPI run. Blocks of ranks above 64 ranks are checked on the API's
 * function with a profile of 200 ranks built in memory.
 */
import test from 'ava';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { TauProfile, TauThreadProfile } from '../src/profile/tau-model.js';
import type { CommMatrix } from '../src/report/comm-matrix.js';
import { matrixAnswer } from '../src/view/matrix-api.js';
import { hyprof, repoRoot, tmpDir } from './helpers/native.js';
import { compileMpiC, mpiMissing, mpirunArgs } from './helpers/mpi.js';
import { launchBrowser, openPage, startView, tab, type ViewServerProcess } from './helpers/view-browser.js';

const missing = mpiMissing();
let browser: Browser;
let server: ViewServerProcess;
let plain: ViewServerProcess;
let report: CommMatrix;

test.before(async () => {
  if (missing) return;
  const app = compileMpiC('mpi_matrix', 'mpi_matrix.c');
  const dir = tmpDir('view-matrix');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(4), app, 'ring', 'alltoall', 'rooted'], {
    env: { HYPROF_COMM_MATRIX: '1', HYPROF_SAMPLING: '0' },
  });
  if (r.code !== 0) throw new Error(r.stderr);
  const j = await hyprof(['report', dir, '--mpi', '--matrix', '--json']);
  if (j.code !== 0) throw new Error(j.stderr);
  report = (JSON.parse(j.stdout) as { matrix: CommMatrix }).matrix;
  browser = await launchBrowser();
  server = await startView([dir]);
  plain = await startView([join(repoRoot, 'test', 'fixtures', 'tau-reference', 'hybrid')]);
});
test.after.always(async () => {
  await browser?.close();
  server?.child.kill('SIGTERM');
  plain?.child.kill('SIGTERM');
});

test.serial('the heat map of 4 ranks: a cell per pair the report gives, with its bytes and messages', async (t) => {
  if (missing) return t.fail(missing);
  const page = await openPage(browser, server.url, { requestFailures: true });
  await tab(page, 'matrix');
  await page.waitForSelector('#matrix-map');
  const cells = await page.$$eval('#matrix-map rect.matrix-cell', (rs) =>
    rs.map((r) => ({
      from: Number(r.getAttribute('data-from')),
      to: Number(r.getAttribute('data-to')),
      count: Number(r.getAttribute('data-messages')),
      bytes: Number(r.getAttribute('data-bytes')),
      fill: r.getAttribute('fill'),
      title: r.querySelector('title')?.textContent ?? '',
    })),
  );
  const key = (c: { from: number; to: number }) => `${c.from}->${c.to}`;
  t.deepEqual(
    cells.map((c) => ({ from: c.from, to: c.to, count: c.count, bytes: c.bytes })).sort((a, b) => key(a).localeCompare(key(b))),
    report.pairs.map((p) => ({ from: p.from, to: p.to, count: p.count, bytes: p.bytes })).sort((a, b) => key(a).localeCompare(key(b))),
  );
  t.is(cells.length, 12, 'every ordered pair of 4 ranks sent something (the all-to-all)');
  // The ring's largest pair (3 → 0: 5 sends of 20,000 bytes) is the darkest of row 3 by bytes.
  const row3 = cells.filter((c) => c.from === 3).sort((a, b) => b.bytes - a.bytes);
  t.is(row3[0].to, 0);
  t.regex(row3[0].title, /^rank 3 → rank 0: [\d.]+ KiB in \d+ messages$/);
  t.not(row3[0].fill, row3[row3.length - 1].fill, 'a larger volume is drawn darker');
  t.regex(await page.textContent('#matrix-summary') ?? '', new RegExp(`^${report.totalMessages.toLocaleString('en-US')} messages, .* between 12 sender → receiver pairs \\(4 ranks\\)`));
  // Coloured by messages instead: the same cells, other colours where counts and bytes disagree.
  await page.selectOption('#matrix-value', 'messages');
  await page.waitForFunction(() => document.querySelector('#matrix-legend')?.textContent?.includes('messages per cell'));
  t.is(await page.$$eval('#matrix-map rect.matrix-cell', (rs) => rs.length), 12);
  t.deepEqual(page.errors, []);
});

test.serial('a profile that is not an MPI run has no Comm matrix tab', async (t) => {
  if (missing) return t.fail(missing);
  const page = await openPage(browser, plain.url);
  t.true(await page.$eval('#tabs button[data-tab="matrix"]', (b) => (b as HTMLButtonElement).hidden));
  t.deepEqual(page.errors, []);
});

/** A profile of `ranks` ranks, each sending `bytes(from, to)` once to each of the next two ranks. */
function ringProfile(ranks: number, bytes: (from: number, to: number) => number): TauProfile {
  const threads: TauThreadProfile[] = [];
  for (let r = 0; r < ranks; r++) {
    const userEvents = [1, 2].map((d) => {
      const to = (r + d) % ranks;
      const b = bytes(r, to);
      return { name: `Message size sent to node ${to}`, count: 1, max: b, min: b, mean: b, sumsqr: b * b };
    });
    threads.push({ node: r, context: 0, thread: 0, events: [], userEvents, metadata: [] } as unknown as TauThreadProfile);
  }
  return { dir: '(in memory)', metrics: ['TIME'], threads: [threads] } as unknown as TauProfile;
}

test('200 ranks: blocks of 4 consecutive ranks, each cell the sum of its block pair, nothing lost', (t) => {
  const m = matrixAnswer(ringProfile(200, (from) => 1000 + from));
  t.is(m.ranks, 200);
  t.is(m.block, 4);
  t.is(m.labels.length, 50);
  t.is(m.labels[0], '0–3');
  t.is(m.labels[49], '196–199');
  t.is(m.totalMessages, 400);
  t.is(m.cells.reduce((n, c) => n + c[2], 0), 400);
  t.is(m.cells.reduce((n, c) => n + c[3], 0), m.totalBytes);
  // block 0 (ranks 0-3) to itself: 0→1, 0→2, 1→2, 1→3, 2→3 (5 messages); to block 1: 2→4, 3→4, 3→5
  const cell = (r: number, c: number) => m.cells.find((x) => x[0] === r && x[1] === c);
  t.deepEqual(cell(0, 0), [0, 0, 5, 1000 * 5 + (0 + 0 + 1 + 1 + 2)]);
  t.deepEqual(cell(0, 1), [0, 1, 3, 1000 * 3 + (2 + 3 + 3)]);
  // the ring closes: ranks 198 and 199 send to 0 and 1
  t.deepEqual(cell(49, 0), [49, 0, 3, 1000 * 3 + (198 + 199 + 199)]);
});

test('a profile without matrix events says how to record one', (t) => {
  const m = matrixAnswer(ringProfile(3, () => 0));
  // events named as the matrix's, so the profile has them; one without any:
  t.is(m.none, undefined);
  const none = matrixAnswer({ dir: 'x', metrics: ['TIME'], threads: [[{ node: 0, context: 0, thread: 0, events: [], userEvents: [], metadata: [] }]] } as unknown as TauProfile);
  t.regex(none.none ?? '', /HYPROF_COMM_MATRIX=1/);
  t.deepEqual(none.cells, []);
});
