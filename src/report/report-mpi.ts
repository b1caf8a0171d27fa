/**
 * Text of the cross-rank parts of `hyprof report`: the ranks section (lost ranks, the slowest rank,
 * per-event statistics over threads as ParaProf's mean / std. dev. views), `--mpi` (the MPI
 * accounting) and the MPI part of `--diagnose`.
 */
import type { CommMatrix } from './comm-matrix.js';
import { mpiShareLine } from '../analysis/mpi-share.js';
import { QUARTILE_ACCURACY, type Quartiles } from '../analysis/quartiles.js';
import type { MpiAccounting, MpiDiagnosis, RanksReport } from './mpi-report.js';
import { formatValue, significant, withCommas } from './report-format.js';
import { formatBytes } from '../base/units.js';

const RULE = '-'.repeat(87);

function table(head: string[], rows: string[][]): string[] {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padStart(w[i]))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)];
}

const msec = (usec: number): string => formatValue(usec, 1000);
const pct = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(1)}%` : '-');
const bytes = formatBytes;
/** A count in few characters: 950, 12.3k, 4.5M. */
const count = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : String(n));

/** Ranks up to which the matrix is printed as a grid; above, the largest pairs are listed. */
const GRID_UP_TO = 16;

/** The ranks section printed after the per-thread tables of a multi-rank profile. */
export function renderRanks(r: RanksReport, unit: 'msec' | 'counts'): string[] {
  const scale = unit === 'msec' ? 1000 : 1;
  const v = (x: number) => formatValue(x, scale);
  const out = ['', `RANKS: ${r.ranks} rank${r.ranks === 1 ? '' : 's'}${r.worldSize !== undefined ? ` of ${r.worldSize}` : ''}, ${r.threads} threads`];
  for (const n of r.notes) out.push(`  WARNING: ${n}`);
  if (r.slowest) {
    out.push(
      `  Slowest rank: ${r.slowest.node} (${v(r.slowest.total)} ${unit} in .TAU application; mean over ranks ${v(r.slowest.meanTotal)} ${unit})`,
    );
  }
  if (r.mpiShare) out.push(`  ${mpiShareLine(r.mpiShare)}. Details: hyprof report --mpi; problems: --diagnose`);
  out.push(
    '',
    `STATISTICS OVER ALL ${r.threads} THREADS (exclusive ${unit}; threads without an event count as 0, as in ParaProf's mean and std. dev.):`,
    RULE,
  );
  out.push(
    ...table(
      ['Mean', 'Std.Dev', 'Min', 'Max', 'Max at n,c,t', 'Threads', 'Calls/thr', 'Name'],
      r.stats.map((s) => [v(s.mean), v(s.std), v(s.min), v(s.max), s.maxAt, String(s.threads), significant(s.calls, 4), s.name]),
    ),
  );
  if (r.stats.length < r.statCount) out.push(`(${r.stats.length} of ${r.statCount} events shown; --limit)`);
  return out;
}

export function renderMpiAccounting(a: MpiAccounting, opts: { limit?: number } = {}): string {
  const limit = opts.limit ?? 20;
  const out: string[] = [];
  if (a.share) out.push(`${mpiShareLine(a.share)}.`, '');
  out.push(
    'MPI per rank (time in msec; MPI % as above: the threads that call MPI, MPI_Init to MPI_Finalize, Init and Finalize apart; ' +
      'bytes as the MPI calls gave them: point-to-point sent / received, collectives):',
  );
  const count = a.overRanks?.count ?? a.ranks.length;
  const shown = count > limit ? [...a.ranks].sort((x, y) => y.share - x.share || x.node - y.node).slice(0, limit) : a.ranks;
  out.push(
    ...table(
      ['Rank', 'Total', 'MPI', 'MPI %', 'Init %', 'Finalize %', 'Calls', 'Sent', 'Received', 'Collective'],
      shown.map((r) => [
        String(r.node),
        msec(r.total),
        msec(r.mpi),
        pct(r.share),
        pct(r.initShare),
        pct(r.finalizeShare),
        withCommas(r.calls),
        bytes(r.sent),
        bytes(r.received),
        bytes(r.collective),
      ]),
    ),
  );
  if (shown.length < count) {
    out.push(`(the ${shown.length} ranks with the largest MPI share of ${withCommas(count)}; --limit)`);
    const o = a.overRanks;
    if (o) {
      const row = (what: string, q: Quartiles, f: (x: number) => string) => [what, `${f(q.min)} (${q.minAt})`, f(q.q1), f(q.median), f(q.q3), `${f(q.max)} (${q.maxAt})`];
      out.push('', `Over the ${withCommas(o.count)} ranks (quartiles within ${100 * QUARTILE_ACCURACY}%; the rank of the least and the most):`);
      out.push(...table(['', 'Min', 'Q1', 'Median', 'Q3', 'Max'], [row('MPI %', o.share, pct), row('Total', o.total, msec), row('MPI', o.mpi, msec)]));
    }
  }
  out.push('', 'MPI calls over ranks (inclusive msec per rank: mean, least and most, with the rank):');
  out.push(
    ...table(
      ['Calls', 'Mean', 'Min', '@', 'Max', '@', '% of run', 'Call'],
      a.byCall.slice(0, limit).map((c) => [withCommas(c.calls), msec(c.mean), msec(c.min), String(c.minAt), msec(c.max), String(c.maxAt), pct(c.share), c.call]),
    ),
  );
  if (a.byCaller.length > 0) {
    out.push('', 'MPI time per calling context (event paths; inclusive msec per rank):');
    out.push(
      ...table(
        ['Calls', 'Mean', 'Min', '@', 'Max', '@', 'Call', 'Context'],
        a.byCaller.slice(0, limit).map((c) => [withCommas(c.calls), msec(c.mean), msec(c.min), String(c.minAt), msec(c.max), String(c.maxAt), c.call, c.caller]),
      ),
    );
  } else {
    out.push('', '(no event paths in this profile: MPI time per context needs HYPROF_CALLPATH=1, the default)');
  }
  if (a.regions.length > 0) {
    out.push('', 'MPI as an overhead class (seed: ompP): time in MPI calls per OpenMP parallel region, summed over ranks and threads:');
    out.push(...table(['Exec msec', 'MPI msec', 'MPI %', 'Region'], a.regions.map((g) => [Number.isFinite(g.exec) ? msec(g.exec) : '-', msec(g.mpi), pct(g.share), g.region])));
  }
  if (a.sites.length > 0) {
    out.push('', 'Call sites (summed over ranks):');
    out.push(
      ...table(
        ['Ranks', 'Calls', 'msec', 'Call', 'Called at', 'Context'],
        a.sites.slice(0, limit).map((s) => [String(s.ranks), withCommas(s.calls), msec(s.usec), s.call, s.location, s.caller || '.TAU application']),
      ),
    );
    if (a.sites.length > limit) out.push(`(${limit} of ${a.sites.length} call sites shown; --limit)`);
  }
  return `${out.map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
}

export function renderMpiDiagnoses(ds: MpiDiagnosis[], ranks: number): string {
  const out = [`MPI (${ranks} ranks)`];
  if (ds.length === 0) out.push('  No MPI load imbalance found.');
  for (const d of ds) out.push('', `Load imbalance between MPI ranks at ${d.location}`, `  ${d.call} in ${d.caller}`, `  ${d.message}`);
  return `${out.join('\n')}\n`;
}


/**
 * `--mpi --matrix`: the communication matrix, bytes and messages per sender × receiver. Up to 16 ranks
 * two grids (rows send, columns receive), as ParaProf's matrix window; above, the pairs that moved the
 * most, `--limit` of them.
 */
export function renderCommMatrix(m: CommMatrix | null, opts: { limit?: number } = {}): string {
  if (!m) {
    return (
      'COMMUNICATION MATRIX: none in this profile. The MPI layer records it when the run sets HYPROF_COMM_MATRIX=1 ' +
      '(or TAU_COMM_MATRIX=1)\n'
    );
  }
  const out = [
    `COMMUNICATION MATRIX: ${withCommas(m.totalMessages)} messages, ${bytes(m.totalBytes)} between ${m.pairs.length} sender → receiver pairs ` +
      '(point-to-point sends; Bcast, Scatter from the root, Reduce, Gather to it; Alltoall)',
  ];
  if (m.ranks.length <= GRID_UP_TO) {
    const at = new Map(m.pairs.map((p) => [`${p.from},${p.to}`, p]));
    const grid = (title: string, cell: (p: { count: number; bytes: number }) => string) => {
      out.push('', title);
      const rows = [['from \\ to', ...m.ranks.map(String)], ...m.ranks.map((from) => [String(from), ...m.ranks.map((to) => { const p = at.get(`${from},${to}`); return p ? cell(p) : '.'; })])];
      // Every column right-aligned, the last too: a grid of numbers.
      const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
      out.push(...rows.map((r) => r.map((c, i) => c.padStart(w[i])).join('  ')));
    };
    grid('Bytes sent (rows: sender rank, columns: receiver rank):', (p) => bytes(p.bytes));
    grid('Messages sent:', (p) => count(p.count));
  } else {
    const limit = opts.limit ?? 20;
    const top = [...m.pairs].sort((a, b) => b.bytes - a.bytes || a.from - b.from || a.to - b.to).slice(0, limit);
    out.push('', `The ${top.length} pairs that moved the most of ${m.pairs.length} (--limit; --json has them all):`);
    out.push(...table(['From', 'To', 'Bytes', 'Messages', 'Mean size'], top.map((p) => [String(p.from), String(p.to), bytes(p.bytes), withCommas(p.count), bytes(p.count ? p.bytes / p.count : 0)])));
  }
  for (const b of m.beyond) {
    out.push(
      `  WARNING: rank ${b.from} sent ${withCommas(b.count)} messages (${bytes(b.bytes)}) to more destinations than its matrix row holds: ` +
        'counted here, not placed in the matrix',
    );
  }
  return `${out.map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
}
