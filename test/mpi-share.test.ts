/**
 * One MPI share, as mpiP and TAU users read it, with real Open MPI on 4 ranks sampled by the wall
 * clock (so every rank also has Open MPI's service threads, which wait in poll for the whole run):
 * the time in MPI of the threads that call MPI, between MPI_Init and MPI_Finalize, with Init and
 * Finalize apart - checked against each rank's own files, and the same figure in the RANKS section
 * of `hyprof report`, in `--mpi` (its rank rows and its whole-program row) and in the viewer.
 */
import test from 'ava';
import { hyprof, tmpDir } from './helpers/native.js';
import { compileMpiC, mpiMissing, mpirunArgs } from './helpers/mpi.js';
import { launchBrowser, openPage, startView } from './helpers/view-browser.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { ProfileApi } from '../src/view/api.js';
import type { MpiShare } from '../src/analysis/mpi-share.js';
import type { MpiAccounting, RanksReport } from '../src/report/mpi-report.js';

const missing = mpiMissing();
const N = 4;
let dir = '';

test.before(async () => {
  if (missing) return;
  const app = compileMpiC('mpi_app_share', 'mpi_app.c');
  dir = tmpDir('mpi-share');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(N), app, 'imbalance', '5'], { env: { HYPROF_COMM_MATRIX: '0' } });
  if (r.code !== 0) throw new Error(r.stderr);
});

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

/** The share as docs/mpi.md defines it, from the files: threads with MPI calls, Init / Finalize apart. */
function fromFiles(): { share: number; init: number; finalize: number; others: number; perRank: number[] } {
  const threads = readTauProfileDir(dir).threads[0];
  let run = 0, mpi = 0, init = 0, fin = 0, others = 0;
  const perRank: number[] = [];
  for (let n = 0; n < N; n++) {
    let rRun = 0, rMpi = 0, rInit = 0, rFin = 0;
    for (const t of threads.filter((x) => x.node === n)) {
      const mpiEvents = t.events.filter((e) => !e.name.includes('=>') && e.group.split('|').includes('MPI'));
      if (mpiEvents.reduce((s, e) => s + e.calls, 0) === 0) {
        others++;
        continue;
      }
      rRun += t.events.find((e) => e.name.trim() === '.TAU application')!.incl;
      rMpi += mpiEvents.reduce((s, e) => s + e.excl, 0);
      rInit += mpiEvents.filter((e) => /^MPI_Init(_thread)?\(\)$/.test(e.name.trim())).reduce((s, e) => s + e.excl, 0);
      rFin += mpiEvents.filter((e) => e.name.trim() === 'MPI_Finalize()').reduce((s, e) => s + e.excl, 0);
    }
    perRank.push((100 * (rMpi - rInit - rFin)) / (rRun - rInit - rFin));
    run += rRun;
    mpi += rMpi;
    init += rInit;
    fin += rFin;
  }
  return { share: (100 * (mpi - init - fin)) / (run - init - fin), init: (100 * init) / run, finalize: (100 * fin) / run, others, perRank };
}

test.serial('the MPI share counts the threads that call MPI, Init and Finalize apart; the same figure in RANKS, --mpi and the viewer', async (t) => {
  if (missing) return t.fail(missing);
  const want = fromFiles();
  // Open MPI's service threads are there and are not counted.
  t.true(want.others >= N, `service threads: ${want.others}`);

  const all = await hyprof(['report', dir, '--json']);
  t.is(all.code, 0, all.stderr);
  const share = (JSON.parse(all.stdout) as { ranks: RanksReport }).ranks.mpiShare as MpiShare;
  t.true(close(share.mean, want.share), `${share.mean} vs ${want.share}`);
  t.true(close(share.init, want.init), `${share.init} vs ${want.init}`);
  t.true(close(share.finalize, want.finalize), `${share.finalize} vs ${want.finalize}`);
  t.is(share.otherThreads, want.others);
  t.true(close(share.min.share, Math.min(...want.perRank)));
  t.true(close(share.max.share, Math.max(...want.perRank)));

  const mpi = await hyprof(['report', dir, '--mpi', '--json']);
  t.is(mpi.code, 0, mpi.stderr);
  const acc = (JSON.parse(mpi.stdout) as { mpi: MpiAccounting }).mpi;
  t.deepEqual(acc.share, share);
  for (const row of acc.ranks) t.true(close(row.share, want.perRank[row.node]), `rank ${row.node}`);
  const whole = acc.regions.find((g) => g.region.startsWith('whole program'));
  t.true(close(whole!.share, want.share), 'the whole-program row is the same figure');

  // One line, word for word, in both texts and in the viewer.
  const line = /Time in MPI: [^\n]*of the run(?:; [^\n.]*counted)?/;
  const ranksText = (await hyprof(['report', dir])).stdout.match(line)?.[0];
  const mpiText = (await hyprof(['report', dir, '--mpi'])).stdout.match(line)?.[0];
  t.truthy(ranksText);
  t.is(mpiText, ranksText);
  t.regex(ranksText!, new RegExp(`^Time in MPI: ${want.share.toFixed(1)}% of the run between MPI_Init and MPI_Finalize of the threads that call MPI`));
  t.regex(ranksText!, new RegExp(`MPI_Init ${want.init.toFixed(1)}%, MPI_Finalize ${want.finalize.toFixed(1)}% of the run; ${want.others} threads that never called MPI`));
  const api = new ProfileApi(readTauProfileDir(dir));
  t.is((api.summary() as { ranks?: { mpiShare?: string } }).ranks?.mpiShare, ranksText);

  const view = await startView([dir]);
  const browser = await launchBrowser();
  try {
    const page = await openPage(browser, view.url);
    t.is(await page.textContent('#mpi-share'), ranksText ?? null);
    t.false(await page.isHidden('#mpi-share'));
    t.deepEqual(page.errors, []);
  } finally {
    await browser.close();
    view.child.kill('SIGTERM');
  }
});
