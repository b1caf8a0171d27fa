/**
 * `report --mpi` and `--diagnose` over many ranks keep their statistics over ranks as they read
 * (src/report/mpi-fold.ts): one rank at a time, folded in and dropped. Checked on generated runs
 * (test/helpers/gen-ranks.ts) against the whole profile read into memory and summed here, and by
 * the heap the scan keeps per rank (measured in a child process after a full collection: 64 and
 * 320 ranks, the difference per rank; keeping each rank's MPI maps cost about 15 KB a rank).
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
import type { MpiAccounting, MpiCallRow, MpiDiagnosis } from '../src/report/mpi-report.js';

const SMALL = 64;
const LARGE = 320;
let small = '';
let large = '';

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

test.serial(`the scan keeps about a kilobyte per rank, not each rank's MPI maps (${SMALL} and ${LARGE} ranks)`, (t) => {
  const kept = (dir: string) => {
    const r = spawnSync(process.execPath, ['--expose-gc', join(repoRoot, 'dist', 'test', 'helpers', 'scan-heap.js'), dir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout) as { ranks: number; threads: number; kept: number };
  };
  const a = kept(small);
  const b = kept(large);
  t.is(a.ranks, SMALL);
  t.is(b.ranks, LARGE);
  t.is(b.threads, 2 * LARGE);
  const perRank = (b.kept - a.kept) / (LARGE - SMALL);
  t.log(`heap kept: ${(a.kept / 2 ** 20).toFixed(1)} MiB at ${SMALL} ranks, ${(b.kept / 2 ** 20).toFixed(1)} MiB at ${LARGE}: ${perRank.toFixed(0)} bytes per rank`);
  // Generous: about 0.5 KB a rank now (the collector leaves some; 1.1 KB before the ranks shared their attribute pairs), 15.6 KB when each rank kept its maps (its run time, MPI time, bytes, rank attributes, MPI share).
  t.true(perRank < 6144, `${perRank.toFixed(0)} bytes kept per rank`);
});
