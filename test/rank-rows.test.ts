/**
 * What the reports keep over ranks in bounded memory, checked against the whole lists:
 * - RankSet (profile/rank-set.ts): ranks as ranges, in any order;
 * - RanksAcc (profile/mpi-ranks.ts): the rank notes from streamed records (lost ranks, files of another
 *   run, settings that differ);
 * - RankRows (report/rank-rows.ts): the per-rank rows of --mpi past their bound, and the quartiles
 *   over every rank (analysis/quartiles.ts).
 */
import test from 'ava';
import { RankSet } from '../src/profile/rank-set.js';
import { rankNotes, RanksAcc, type RankRecord } from '../src/profile/mpi-ranks.js';
import { RANK_ROWS_KEPT, RankRows, type MpiRankRow } from '../src/report/rank-rows.js';
import { QUARTILE_ACCURACY } from '../src/analysis/quartiles.js';

/** A fixed pseudo-random sequence (the test's data must not change between runs). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

test('RankSet: ranks in order, out of order and repeated are the same ranges as a sorted list', (t) => {
  const rnd = lcg(7);
  for (let round = 0; round < 20; round++) {
    const set = new RankSet();
    const want = new Set<number>();
    for (let i = 0; i < 300; i++) {
      // Mostly the next rank, sometimes a jump back or ahead, sometimes one seen already.
      const r = rnd();
      const x = r < 0.6 ? want.size : Math.floor(rnd() * 400);
      set.add(x);
      want.add(x);
    }
    const sorted = [...want].sort((a, b) => a - b);
    t.deepEqual([...set], sorted);
    t.is(set.size, sorted.length);
    for (let x = -2; x < 410; x++) t.is(set.has(x), want.has(x), `has(${x})`);
    t.deepEqual(set.missingBelow(420), [...Array(420).keys()].filter((x) => !want.has(x)));
  }
  const s = new RankSet();
  for (const x of [8, 7, 0, 1, 2, 3, 5, 3]) s.add(x);
  t.is(s.toString(), '0-3, 5, 7-8');
  s.add(4);
  s.add(6);
  t.is(s.toString(), '0-8');
  const big = new RankSet();
  for (let x = 0; x < 100000; x++) big.add(x);
  t.is(big.toString(), '0-99999', 'a job of 100,000 ranks in order is one range');
});

function record(node: number, extra: Array<[string, string]> = []): RankRecord {
  return { node, source: `profile.${node}.0.0`, attributes: [['MPI Rank', String(node)], ['MPI World Size', '10'], ...extra] };
}

test('RanksAcc: lost ranks, a minority of another run and differing settings, from records one at a time', (t) => {
  const acc = new RanksAcc();
  for (const n of [0, 1, 2, 3, 5, 6]) acc.add(record(n, [['MPI Run Id', 'job-7'], ['HYPROF_SAMPLING', n < 3 ? '1' : '0']]));
  for (const n of [8, 9]) acc.add(record(n, [['MPI Run Id', 'job-6']]));
  acc.add({ node: 4, source: 'x', attributes: [] }); // not an MPI process: not counted
  const s = acc.summary();
  t.is(s.runId, 'job-7');
  t.is(s.worldSize, 10);
  t.is(s.present, 6);
  t.deepEqual(s.lost, [4, 7, 8, 9]);
  t.deepEqual(rankNotes(s), [
    'ranks 4, 7-9 of 10 wrote no measurements (the process crashed, was killed before it could write, or never started): the profile has 6 of 10 ranks',
    "profile.8.0.0 and others: the files of ranks 8-9 (2) are from another run (MPI Run Id job-6, not job-7): left over in this directory, not part of this run",
    'ranks were measured with different settings: HYPROF_SAMPLING is 1 (ranks 0-2), 0 (ranks 3, 5-6); their profiles do not compare',
  ]);
  t.true(acc.isMpi);
  const one = new RanksAcc();
  one.add(record(3, [['MPI Run Id', 'a']]));
  one.add(record(3, [['MPI Run Id', 'b']]));
  one.add(record(2, [['MPI Run Id', 'b']]));
  t.is(rankNotes(one.summary())[1], "profile.3.0.0: rank 3's files are from another run (MPI Run Id a, not b): left over in this directory, not part of this run");
});

test(`RankRows: past ${RANK_ROWS_KEPT} ranks, exactly the rows with the largest MPI share, and quartiles within ${100 * QUARTILE_ACCURACY}%`, (t) => {
  const rnd = lcg(11);
  const all: MpiRankRow[] = [];
  const rows = new RankRows();
  for (let node = 0; node < 5000; node++) {
    // Ties on purpose (shares rounded to 0.1): the lower rank goes first among equal shares.
    const share = Math.round(1000 * rnd() * rnd()) / 10;
    const row = { node, total: 1e6 + 1e3 * rnd(), mpi: share * 1e4, share, initShare: 1, finalizeShare: 0.5, calls: 10, sent: 0, received: 0, collective: 0 };
    all.push(row);
    rows.add(row);
  }
  const got = rows.result();
  t.false(got.all);
  const want = [...all].sort((a, b) => b.share - a.share || a.node - b.node).slice(0, RANK_ROWS_KEPT);
  t.deepEqual(got.rows, want);
  const exact = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))];
  for (const key of ['share', 'total', 'mpi'] as const) {
    const values = all.map((r) => r[key]);
    const d = got.over![key];
    t.is(d.n, 5000);
    t.is(d.min, Math.min(...values));
    t.is(d.max, Math.max(...values));
    t.is(all[d.maxAt][key], d.max);
    t.is(all[d.minAt][key], d.min);
    for (const [q, v] of [[0.25, d.q1], [0.5, d.median], [0.75, d.q3]] as const) {
      const e = exact(values, q);
      t.true(Math.abs(v - e) <= QUARTILE_ACCURACY * Math.abs(e) + 1e-9, `${key} at ${q}: ${v} against ${e}`);
    }
  }
  // A job within the bound: every rank's row, by rank.
  const few = new RankRows();
  for (const r of all.slice(0, 30).reverse()) few.add(r);
  const f = few.result();
  t.true(f.all);
  t.deepEqual(f.rows, all.slice(0, 30));
});
