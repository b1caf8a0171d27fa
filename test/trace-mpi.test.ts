/**
 * MPI events in the trace (HYPROF_TRACE, docs/trace.md): real MPI programs under Open MPI, 4 ranks,
 * traced and resolved; the archive read with the OTF2 project's own readers (`otf2-print`, Python's
 * `otf2` through test/helpers/otf2_mpi_check.py): every send matched by exactly one receive with the
 * same bytes, tag and communicator, non-blocking requests completed once, collectives with their root
 * and bytes, communicators made by MPI_Comm_split / MPI_Comm_dup with their members; and
 * `hyprof report --trace` on the real archive of the late sender finds its known delay within 10 %.
 * A Fortran program (`use mpi`) is traced the same, through the layer's Fortran wrappers. One run of
 * each program serves all the assertions on it.
 */
import test, { type ExecutionContext } from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { haveTool, hyprof, libPath, repoRoot, tmpDir } from './helpers/native.js';
import { compileMpiC, compileMpiFortran, mpiMissing, mpirunArgs } from './helpers/mpi.js';
import { otf2WriterPath } from '../src/base/package-root.js';
import type { TraceReport } from '../src/report/report-trace.js';

const PYTHON = '/usr/bin/python3'; // python3-otf2 is a Debian package: the system's python
const checker = join(repoRoot, 'test', 'helpers', 'otf2_mpi_check.py');

function missing(): string | null {
  if (!existsSync(libPath)) return `the native runtime is not built: ${libPath}`;
  if (!existsSync(otf2WriterPath)) return `hyprof-otf2 is not built (no OTF2 library, libopen-trace-format2-dev): ${otf2WriterPath}`;
  if (!haveTool('otf2-print')) return 'otf2-print is not installed (otf2-tools)';
  if (spawnSync(PYTHON, ['-c', 'import otf2']).status !== 0) return `${PYTHON} cannot import otf2 (python3-otf2)`;
  return mpiMissing();
}
const why = missing();
if (why) console.log(`MPI trace tests skipped: ${why}`);
const traceTest = why ? test.skip : test.serial;

interface Message { from: number; to: number; comm: number; tag: number; bytes: number }
interface MpiArchive {
  comms: Array<{ id: number; name: string; members: number[] }>;
  messages: Message[];
  unmatched_sends: Message[];
  unmatched_recvs: Message[];
  bytes_differ: unknown[];
  isend: { issued: number; completed: number; bad: number };
  irecv: { requested: number; completed: number; bad: number };
  collectives: Array<{ rank: number; op: string; comm: number; root: number | null; sent: number; received: number }>;
  coll_unbalanced: number;
}

function readMpi(dir: string): MpiArchive {
  const anchor = join(dir, 'traces.otf2');
  const printed = spawnSync('otf2-print', [anchor], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (printed.status !== 0) throw new Error(`otf2-print ${anchor}: ${printed.stderr}`);
  const r = spawnSync(PYTHON, [checker, anchor], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`otf2_mpi_check.py ${anchor}: ${r.stderr}`);
  return JSON.parse(r.stdout) as MpiArchive;
}

const SIZE = 4;

/** `exe` run traced under mpirun on SIZE ranks, its archive read; every send matched by one receive. */
async function tracedRun(t: ExecutionContext, exe: string, tag: string, args: string[] = [], env: Record<string, string> = {}) {
  const out = tmpDir(`trace-mpi-${tag}`);
  const r = await hyprof(['run', '--dir', out, '--', 'mpirun', ...mpirunArgs(SIZE), exe, ...args], {
    env: { HYPROF_TRACE: '1', HYPROF_SAMPLING: '0', ...env },
    timeoutMs: 300_000,
  });
  t.is(r.code, 0, r.stderr);
  const a = readMpi(out);
  t.deepEqual(a.unmatched_sends, []);
  t.deepEqual(a.unmatched_recvs, []);
  return { out, r, a };
}

traceTest('point-to-point, non-blocking, split and duplicated communicators, rooted collectives: every message matched, every request completed once', async (t) => {
  const exe = compileMpiC('mpi_trace_msgs', 'mpi_trace_msgs.c');
  // a second metric: the enter / leave records carry its values, the MPI records do not (records of
  // several sizes in one buffer)
  const { r, a } = await tracedRun(t, exe, 'msgs', [], { HYPROF_METRICS: 'TIME:CPU_TIME' });
  t.regex(r.stdout, /ranks 4 ok/);

  // Per rank: Send (tag 1), two Isends (tags 2, 3), three Sendrecvs (tag 4 on WORLD, 5 on its half,
  // 6 on the duplicate): 6 messages, each received once with the bytes sent (tracedRun: matched).
  t.deepEqual(a.bytes_differ, []);
  t.is(a.messages.length, 6 * SIZE);
  const world = a.comms.find((c) => c.name === 'MPI_COMM_WORLD')!;
  t.deepEqual(world.members, [0, 1, 2, 3]);
  for (let rank = 0; rank < SIZE; rank++) {
    const next = (rank + 1) % SIZE, prev = (rank + SIZE - 1) % SIZE;
    const sent = (tag: number) => a.messages.filter((m) => m.from === rank && m.tag === tag);
    t.deepEqual(sent(1), [{ from: rank, to: next, comm: world.id, tag: 1, bytes: 100 * (rank + 1) }]);
    t.deepEqual(sent(2), [{ from: rank, to: prev, comm: world.id, tag: 2, bytes: 32 }]);
    t.deepEqual(sent(3), [{ from: rank, to: next, comm: world.id, tag: 3, bytes: 4 }]);
    t.deepEqual(sent(4), [{ from: rank, to: next, comm: world.id, tag: 4, bytes: 16 }]);
    // tag 5 on the half of its parity (MPI_Comm_split): a communicator of 2 members, not WORLD
    const [half] = sent(5);
    t.is(half.to, (rank + 2) % SIZE);
    t.deepEqual(a.comms[half.comm].members, rank % 2 ? [1, 3] : [0, 2]);
    // tag 6 on the duplicate of WORLD (MPI_Comm_dup): the same members, another communicator
    const [dup] = sent(6);
    t.is(dup.to, next);
    t.not(dup.comm, world.id);
    t.deepEqual(a.comms[dup.comm].members, [0, 1, 2, 3]);
  }
  // one communicator for each half and one duplicate, shared by the ranks' events
  t.is(new Set(a.messages.filter((m) => m.tag === 5).map((m) => m.comm)).size, 2);
  t.is(new Set(a.messages.filter((m) => m.tag === 6).map((m) => m.comm)).size, 1);

  t.deepEqual(a.isend, { issued: 2 * SIZE, completed: 2 * SIZE, bad: 0 });
  t.deepEqual(a.irecv, { requested: 2 * SIZE, completed: 2 * SIZE, bad: 0 });

  t.is(a.coll_unbalanced, 0);
  const coll = (op: string) => a.collectives.filter((c) => c.op === op).sort((x, y) => x.rank - y.rank);
  t.deepEqual(coll('BCAST').map((c) => [c.rank, c.comm, c.root, c.sent, c.received]), [
    [0, world.id, 1, 0, 64], [1, world.id, 1, 64 * 3, 0], [2, world.id, 1, 0, 64], [3, world.id, 1, 0, 64],
  ]);
  // Reduce of 2 ints to rank 1 of each half: world rank 2 (even half) and 3 (odd half)
  t.deepEqual(coll('REDUCE').map((c) => [c.rank, c.root, c.sent, c.received]), [
    [0, 2, 8, 0], [1, 3, 8, 0], [2, 2, 8, 16], [3, 3, 8, 16],
  ]);
  t.deepEqual(coll('ALLREDUCE').map((c) => [c.rank, c.root, c.sent, c.received]), [0, 1, 2, 3].map((rank) => [rank, null, 4, 4]));
  t.deepEqual(coll('BARRIER').map((c) => [c.rank, c.comm, c.root]), [0, 1, 2, 3].map((rank) => [rank, world.id, null]));
  t.is(a.collectives.length, 4 * SIZE);
});

traceTest('the late sender on a real archive: its messages matched, and report --trace finds its known delay within 10 %', async (t) => {
  const exe = compileMpiC('mpi_late_sender', 'mpi_late_sender.c');
  const delayMs = 300;
  const { out, a } = await tracedRun(t, exe, 'late', [String(delayMs)]);
  t.deepEqual(a.messages.map((m) => [m.from, m.to, m.tag, m.bytes]).sort(), [[0, 1, 7, 4096], [0, 2, 7, 4096], [0, 3, 7, 4096]]);
  t.deepEqual(a.collectives.map((c) => c.op).sort(), [...Array(SIZE).fill('ALLREDUCE'), ...Array(SIZE).fill('BARRIER')]);

  const rep = await hyprof(['report', out, '--trace', '--json']);
  t.is(rep.code, 0, rep.stderr);
  const report = JSON.parse(rep.stdout) as TraceReport;
  const late = report.waitStates.filter((w) => w.kind === 'late sender');
  t.deepEqual(late.map((w) => w.rank).sort(), [1, 2, 3], 'each receiver waits for rank 0');
  for (const w of late) {
    t.is(w.call, 'MPI_Recv()');
    t.is(w.count, 1);
    t.true(Math.abs(w.time / 1e6 - delayMs) <= 0.1 * delayMs, `rank ${w.rank} waited ${w.time / 1e6} ms for a sender ${delayMs} ms late`);
  }
});

traceTest('Fortran (use mpi): its messages and requests traced through the Fortran wrappers, every send matched', async (t) => {
  const exe = compileMpiFortran('trace_mpi_app_f90', 'mpi_app.f90');
  const { a } = await tracedRun(t, exe, 'fortran');
  t.deepEqual(a.bytes_differ, []);
  // per rank (test/native/mpi_app.f90): MPI_Send 4 x 80 B (tag 1), MPI_Isend 2 x 20 B (tag 2)
  t.is(a.messages.length, 6 * SIZE);
  t.is(a.messages.filter((m) => m.tag === 1 && m.bytes === 80).length, 4 * SIZE);
  t.is(a.messages.filter((m) => m.tag === 2 && m.bytes === 20).length, 2 * SIZE);
  t.deepEqual(a.isend, { issued: 2 * SIZE, completed: 2 * SIZE, bad: 0 });
  t.deepEqual(a.irecv, { requested: 2 * SIZE, completed: 2 * SIZE, bad: 0 });
  t.is(a.coll_unbalanced, 0);
  t.deepEqual(a.collectives.filter((c) => c.op === 'BCAST').map((c) => c.received + c.sent).sort(), [12, 12, 12, 36]);
});
