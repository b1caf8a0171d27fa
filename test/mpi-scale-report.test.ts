/**
 * `report --mpi` and `--diagnose` over many ranks keep their statistics over ranks as they read
 * (src/report/mpi-fold.ts): one rank at a time, folded in and dropped. Checked on generated runs
 * (test/helpers/gen-ranks.ts) against the whole profile read into memory and summed here, and by
 * the heap the scan keeps per rank (measured in a child process after full collections: 64 and
 * 2,000 ranks, the difference per rank; keeping each rank's MPI maps cost about 15 KB a rank, its
 * few numbers and records about 0.5 KB), and by the per-rank rows of --mpi past their bound.
 * Time is measured in bench/mpi-scale.ts, never here.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { hyprof, repoRoot, tmpDir } from './helpers/native.js';
import { generateRanks } from './helpers/gen-ranks.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { displayName } from '../src/profile/tau-model.js';
import type { MpiAccounting, MpiCallRow, MpiDiagnosis, RanksReport } from '../src/report/mpi-report.js';
import { RANK_ROWS_KEPT } from '../src/report/rank-rows.js';
import { QUARTILE_ACCURACY } from '../src/analysis/quartiles.js';



const SMALL = 64;
const LARGE = 320;
/** More ranks than rank-rows.ts keeps rows of. */
const MANY = 2000;
let small = '';
let large = '';
let many = '';

const made: string[] = [];
async function generated(ranks: number): Promise<string> {
  const raw = tmpDir(`mpiscale-raw${ranks}`);
  made.push(raw);
  generateRanks(raw, { ranks, threads: 2, samples: 10 });
  const out = tmpDir(`mpiscale-out${ranks}`);
  made.push(out);
  const r = await hyprof(['resolve', raw, '-o', out]);
  if (r.code !== 0) throw new Error(r.stderr);
  return out;
}

test.before(async () => {
  small = await generated(SMALL);
  large = await generated(LARGE);
  many = await generated(MANY);
});
test.after.always(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

interface Per {
  node: number;
  calls: number;
  incl: number;
}

/** The statistics over ranks of one value, computed from the list of every rank's value. */
function overRanks(per: Per[]): Pick<MpiCallRow, 'calls' | 'mean' | 'min' | 'minAt' | 'max' | 'maxAt' | 'ranks'> {
  const byTime = [...per].sort((a, b) => a.incl - b.incl || a.node - b.node);
  return {
    calls: per.reduce((n, p) => n + p.calls, 0),
    mean: per.reduce((n, p) => n + p.incl, 0) / per.length,
    min: byTime[0].incl,
    minAt: byTime[0].node,
    max: byTime[byTime.length - 1].incl,
    maxAt: byTime[byTime.length - 1].node,
    ranks: per.length,
  };
}

test.serial(`${SMALL} ranks: --mpi per call and calling context, and --diagnose's ranks, as the whole profile in memory gives them`, async (t) => {
  // The whole profile, summed per rank here: per MPI call (flat) and per caller path and call.
  const threads = readTauProfileDir(small).threads[0];
  const byCall = new Map<string, Map<number, Per>>();
  const byCaller = new Map<string, Map<number, Per>>();
  for (const th of threads) {
    for (const e of th.events) {
      if (!e.group.split('|').some((g) => g.trim() === 'MPI') || e.name.includes('[SAMPLE]') || e.name.includes('[CONTEXT]')) continue;
      const parts = displayName(e.name).split(/\s+=>\s+/);
      const key = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(' => ')}\u0000${parts[parts.length - 1]}`;
      const into = parts.length === 1 ? byCall : byCaller;
      let m = into.get(key);
      if (!m) into.set(key, (m = new Map()));
      const p = m.get(th.node) ?? { node: th.node, calls: 0, incl: 0 };
      p.calls += e.calls;
      p.incl += e.incl;
      m.set(th.node, p);
    }
  }
  const r = await hyprof(['report', small, '--mpi', '--json']);
  t.is(r.code, 0, r.stderr);
  const mpi = (JSON.parse(r.stdout) as { mpi: MpiAccounting }).mpi;
  t.is(mpi.byCall.length, byCall.size);
  for (const row of mpi.byCall) {
    const want = overRanks([...byCall.get(row.call)!.values()]);
    t.like(row, { ...want, mean: row.mean }, row.call);
    t.true(Math.abs(row.mean - want.mean) <= 1e-9 * Math.abs(want.mean), `${row.call}: mean ${row.mean} against ${want.mean}`);
  }
  t.is(mpi.byCaller.length, byCaller.size);
  t.true(byCaller.size > 40, 'the generated run has a calling context per iteration');
  for (const row of mpi.byCaller) {
    const per = byCaller.get(`${row.caller}\u0000${row.call}`);
    t.truthy(per, `${row.caller} => ${row.call}`);
    const want = overRanks([...per!.values()]);
    t.like(row, { ...want, mean: row.mean }, `${row.caller} => ${row.call}`);
  }
  // The imbalance at MPI_Allreduce under solve (every iteration's context summed per rank): the rank
  // that spends least there arrives last.
  const allreduce: Per[] = [];
  for (const [key, m] of byCaller) {
    if (!key.endsWith('solve\u0000MPI_Allreduce()')) continue;
    for (const p of m.values()) {
      const q = allreduce.find((x) => x.node === p.node);
      if (q) q.incl += p.incl;
      else allreduce.push({ ...p });
    }
  }
  const want = overRanks(allreduce);
  const d = await hyprof(['report', small, '--diagnose', '--json']);
  t.is(d.code, 0, d.stderr);
  const diag = (JSON.parse(d.stdout) as { mpi: MpiDiagnosis[] }).mpi.find((x) => x.call === 'MPI_Allreduce()');
  t.truthy(diag, d.stdout.slice(0, 2000));
  t.regex(diag!.message, new RegExp(`Rank ${want.minAt} spends least: it arrives last, and ranks 0-${SMALL - 2} wait for it \\(rank ${want.maxAt} longest`));
});

test.serial(`the scan's memory does not grow with the ranks: ${SMALL} and ${MANY} ranks`, (t) => {
  const kept = (dir: string) => {
    const r = spawnSync(process.execPath, ['--expose-gc', join(repoRoot, 'dist', 'test', 'helpers', 'scan-heap.js'), dir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout) as { ranks: number; threads: number; kept: number; withoutRows: number };
  };
  const a = kept(small);
  const b = kept(many);
  t.is(a.ranks, SMALL);
  t.is(b.ranks, MANY);
  t.is(b.threads, 2 * MANY);
  const perRank = (b.withoutRows - a.withoutRows) / (MANY - SMALL);
  const rows = b.kept - b.withoutRows;
  t.log(`heap kept without the --mpi rows: ${(a.withoutRows / 1024).toFixed(0)} KiB at ${SMALL} ranks, ${(b.withoutRows / 1024).toFixed(0)} KiB at ${MANY}: ${perRank.toFixed(0)} bytes per rank; the rows ${(rows / 1024).toFixed(0)} KiB`);
  // About 0 now (the collections leave ±100 KB either way); about 500 bytes a rank when each rank kept
  // its figures and records, 15.6 KB when it kept its maps.
  t.true(perRank < 100, `${perRank.toFixed(0)} bytes kept per rank`);
  // At most 2 × RANK_ROWS_KEPT rows of about 200 bytes (about 400 KB measured).
  t.true(rows < 1024 * 1024, `the --mpi rows keep ${rows} bytes`);
});

test.serial(`report --mpi past ${RANK_ROWS_KEPT} ranks: the ranks with the largest MPI share, and quartiles over all`, async (t) => {
  const j = await hyprof(['report', many, '--mpi', '--json']);
  t.is(j.code, 0, j.stderr);
  const body = JSON.parse(j.stdout) as { ranks: RanksReport; mpi: MpiAccounting };
  const a = body.mpi;
  t.false(a.allRanks);
  t.is(a.ranks.length, RANK_ROWS_KEPT);
  t.is(a.overRanks?.count, MANY);
  for (let i = 1; i < a.ranks.length; i++) t.true(a.ranks[i - 1].share >= a.ranks[i].share, `row ${i} by MPI share`);
  // The share's least and most, kept apart (analysis/mpi-share.ts), agree with the rows and quartiles.
  const share = body.ranks.mpiShare!;
  t.is(a.ranks[0].node, share.max.node);
  t.is(a.ranks[0].share, share.max.share);
  const q = a.overRanks!.share;
  t.is(q.max, share.max.share);
  t.is(q.min, share.min.share);
  t.is(q.minAt, share.min.node);
  t.true(q.min <= q.q1 && q.q1 <= q.median && q.median <= q.q3 && q.q3 <= q.max, JSON.stringify(q));
  // The 1,024 largest of 2,000 shares reach below the median and stay above the first quartile
  // (the exact choice is checked in test/rank-rows.test.ts).
  const last = a.ranks[a.ranks.length - 1].share;
  t.true(last <= q.median * (1 + QUARTILE_ACCURACY) && last >= q.q1 * (1 - QUARTILE_ACCURACY), `${last} against ${JSON.stringify(q)}`);
  const text = await hyprof(['report', many, '--mpi']);
  t.is(text.code, 0, text.stderr);
  t.true(text.stdout.includes(`(the 20 ranks with the largest MPI share of 2,000; --limit)`), text.stdout.slice(0, 3000));
  t.regex(text.stdout, /Over the 2,000 ranks \(quartiles within 1%; the rank of the least and the most\):\n.*Min.*Q1.*Median.*Q3.*Max\n\s*MPI %\s+[\d.]+% \(\d+\)/);
});
