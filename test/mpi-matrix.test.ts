/**
 * The communication matrix (HYPROF_COMM_MATRIX / TAU_COMM_MATRIX) with real Open MPI on 4 ranks: a
 * ring (point-to-point, and a reversed communicator whose ranks the layer translates to
 * MPI_COMM_WORLD), an all-to-all (Alltoall, Alltoallv) and the rooted collectives, each with known
 * volumes: every sender → receiver pair's messages and bytes checked exactly, in the profile as TAU
 * writes it ("Message size sent to node <N>", what ParaProf's matrix window reads, accepted by TAU's
 * strict reader) and in `hyprof report --mpi --matrix`. Off by default, as in TAU.
 */
import test from 'ava';
import { hyprof, run, tmpDir } from './helpers/native.js';
import { compileMpiC, mpiMissing, mpirunArgs, rankMain, userEvent } from './helpers/mpi.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { CommMatrix } from '../src/report/comm-matrix.js';
import { renderCommMatrix } from '../src/report/report-mpi.js';

const missing = mpiMissing();
const N = 4;
type Cells = Map<string, { count: number; bytes: number }>;

function add(m: Cells, from: number, to: number, count: number, bytes: number): void {
  const k = `${from}->${to}`;
  const c = m.get(k) ?? { count: 0, bytes: 0 };
  m.set(k, { count: c.count + count, bytes: c.bytes + bytes });
}

/** test/native/mpi_matrix.c's traffic, as docs/mpi.md says the matrix counts it. */
function expected(patterns: string[]): Cells {
  const m: Cells = new Map();
  for (let r = 0; r < N; r++) {
    if (patterns.includes('ring')) {
      add(m, r, (r + 1) % N, 5, 5 * (r + 1) * 1000);
      add(m, r, (r + N - 1) % N, 1, 7);
    }
    if (patterns.includes('alltoall')) {
      for (let d = 0; d < N; d++) if (d !== r) add(m, r, d, 4, 3 * 1024 + 4 * (r + 1) * (d + 1));
    }
    if (patterns.includes('rooted')) {
      if (r === 0) for (let d = 1; d < N; d++) add(m, 0, d, 1, 2048); // Bcast from 0
      if (r !== 1) add(m, r, 1, 1, 32); // Reduce of 4 doubles to 1
      if (r !== 2) add(m, r, 2, 1, 40); // Gather of 10 ints to 2
      if (r === 3) for (let d = 0; d < 3; d++) add(m, 3, d, 1, 12); // Scatter of 3 ints from 3
    }
  }
  return m;
}

/** The matrix as the profile holds it: each rank's "Message size sent to node <N>" events. */
function fromProfile(dir: string): Cells {
  const m: Cells = new Map();
  const p = readTauProfileDir(dir);
  for (let r = 0; r < N; r++) {
    for (const th of p.threads[0].filter((x) => x.node === r)) {
      for (const u of th.userEvents) {
        const hit = /^Message size sent to node (\d+)$/.exec(u.name);
        if (hit) add(m, r, Number(hit[1]), u.count, Math.round(u.mean * u.count));
      }
    }
  }
  return m;
}

const sorted = (m: Cells) => [...m].sort((a, b) => a[0].localeCompare(b[0]));

async function matrixJson(dir: string): Promise<CommMatrix | null> {
  const r = await hyprof(['report', dir, '--mpi', '--matrix', '--json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return (JSON.parse(r.stdout) as { matrix: CommMatrix | null }).matrix;
}

test.serial('a ring under hyprof run -- mpirun -np 4: every pair exact, as TAU writes it, in report --mpi --matrix', async (t) => {
  if (missing) return t.fail(missing);
  const app = compileMpiC('mpi_matrix', 'mpi_matrix.c');
  const dir = tmpDir('mpi-matrix-ring');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(N), app, 'ring'], { env: { HYPROF_COMM_MATRIX: '1' } });
  t.is(r.code, 0, r.stderr);
  t.deepEqual(sorted(fromProfile(dir)), sorted(expected(['ring'])));
  // The per-call totals are unchanged beside the matrix: 5 sends and one Sendrecv per rank.
  for (let n = 0; n < N; n++) t.is(userEvent(rankMain(readTauProfileDir(dir), n), 'Message size sent to all nodes').count, 6);
  const tau = readWithTau(dir);
  t.true(tau.ok, tauReaderComplaints(tau));
  const seen = tau.threads.flatMap((th) => th.user_events.filter((u) => u.name.startsWith('Message size sent to node ')).map((u) => `${th.node}:${u.name}`));
  t.is(seen.length, 2 * N, 'TAU reads the matrix events of every rank');

  const m = await matrixJson(dir);
  t.truthy(m);
  t.deepEqual(m!.ranks, [0, 1, 2, 3]);
  t.deepEqual(sorted(new Map(m!.pairs.map((p) => [`${p.from}->${p.to}`, { count: p.count, bytes: p.bytes }]))), sorted(expected(['ring'])));
  t.is(m!.totalMessages, 6 * N);
  t.is(m!.totalBytes, 5 * 1000 * (1 + 2 + 3 + 4) + 7 * N);
  t.deepEqual(m!.beyond, []);

  const text = await hyprof(['report', dir, '--mpi', '--matrix']);
  t.is(text.code, 0, text.stderr);
  t.regex(text.stdout, /COMMUNICATION MATRIX: 24 messages, 48\.9 KiB between 8 sender → receiver pairs/);
  // Row 3 of the bytes grid: 7 B to rank 2, 19.5 KiB (20,000 B) to rank 0.
  t.regex(text.stdout, /^\s*3\s+19\.5 KiB\s+\.\s+7 B\s+\.$/m);
  t.regex(text.stdout, /Messages sent:\n.*\n\s*0\s+\.\s+5\s+\.\s+1$/m);

  const bad = await hyprof(['report', dir, '--matrix']);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /--matrix is a part of the MPI accounting: give it with --mpi/);
});

test.serial('all-to-all and the rooted collectives, linked, TAU_COMM_MATRIX=1: each pair by root as TAU counts it; off by default', async (t) => {
  if (missing) return t.fail(missing);
  const linked = compileMpiC('mpi_matrix_linked', 'mpi_matrix.c', true);
  const dir = tmpDir('mpi-matrix-alltoall');
  const env = { HYPROF_DIR: dir, HYPROF_SAMPLING: '0', TAU_COMM_MATRIX: '1' };
  const r = await run('mpirun', [...mpirunArgs(N), '-x', 'HYPROF_DIR', '-x', 'HYPROF_SAMPLING', '-x', 'TAU_COMM_MATRIX', linked, 'alltoall', 'rooted'], { env });
  t.is(r.code, 0, r.stderr);
  t.notRegex(r.stderr, /TAU_COMM_MATRIX is not supported/);
  const want = expected(['alltoall', 'rooted']);
  t.deepEqual(sorted(fromProfile(dir)), sorted(want));
  const tau = readWithTau(dir);
  t.true(tau.ok, tauReaderComplaints(tau));
  const m = await matrixJson(dir);
  t.deepEqual(sorted(new Map(m!.pairs.map((p) => [`${p.from}->${p.to}`, { count: p.count, bytes: p.bytes }]))), sorted(want));
  t.is(readTauProfileDir(dir).threads[0][0].metadata.find(([k]) => k === 'hyprof Communication Matrix')?.[1], 'on (a row of up to 4096 destinations per rank)');

  // Without the variable nothing per destination is recorded, and the report says how to get it.
  const off = tmpDir('mpi-matrix-off');
  const r2 = await run('mpirun', [...mpirunArgs(N), '-x', 'HYPROF_DIR', '-x', 'HYPROF_SAMPLING', linked, 'alltoall'], { env: { HYPROF_DIR: off, HYPROF_SAMPLING: '0' } });
  t.is(r2.code, 0, r2.stderr);
  t.is(fromProfile(off).size, 0);
  const text = await hyprof(['report', off, '--mpi', '--matrix']);
  t.is(text.code, 0, text.stderr);
  t.regex(text.stdout, /COMMUNICATION MATRIX: none in this profile\. The MPI layer records it when the run sets HYPROF_COMM_MATRIX=1/);
});

test('report --mpi --matrix above 16 ranks: the pairs that moved the most, and messages beyond a full row said', (t) => {
  const ranks = [...Array(20).keys()];
  const pairs = ranks.map((r) => ({ from: r, to: (r + 1) % 20, count: r + 1, bytes: (r + 1) * 3 * 1024 * 1024 }));
  const text = renderCommMatrix(
    { ranks, pairs, totalBytes: pairs.reduce((a, p) => a + p.bytes, 0), totalMessages: 210, beyond: [{ from: 7, to: -1, count: 12, bytes: 4096 }] },
    { limit: 3 },
  );
  t.regex(text, /COMMUNICATION MATRIX: 210 messages, 630\.0 MiB between 20 sender → receiver pairs/);
  t.regex(text, /The 3 pairs that moved the most of 20/);
  const rows = text.split('\n').filter((l) => /^\s*\d+\s+\d+\s/.test(l));
  t.deepEqual(rows.map((l) => l.trim().split(/\s{2,}/)), [
    ['19', '0', '60.0 MiB', '20', '3.0 MiB'],
    ['18', '19', '57.0 MiB', '19', '3.0 MiB'],
    ['17', '18', '54.0 MiB', '18', '3.0 MiB'],
  ]);
  t.regex(text, /WARNING: rank 7 sent 12 messages \(4\.0 KiB\) to more destinations than its matrix row holds/);
});
