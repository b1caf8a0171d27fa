/**
 * Every family of MPI calls the layer wraps, with real Open MPI (test/native/mpi_calls.c):
 * point-to-point blocking and non-blocking, each Wait / Test completion call, persistent requests,
 * blocking and non-blocking collectives, communicator and one-sided basics, MPI_Init_thread and
 * MPI_Finalize. Every rank's calls counted exactly, each as TAU names it in group MPI, and its bytes
 * as TAU's atomic user events to the byte (counts and sizes depend on the rank and the number of
 * ranks: run with 3 ranks around mpirun and with 4 ranks as a linked program).
 */
import test from 'ava';
import { cliPath, hyprof, run, tmpDir } from './helpers/native.js';
import { calls, compileMpiC, mpiMissing, mpirunArgs, rankMain, userEvent } from './helpers/mpi.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauProfile } from '../src/profile/tau-model.js';

const missing = mpiMissing();

/** Calls made exactly this many times by every rank (see mpi_calls.c). */
const EXACT: Record<string, number> = {
  'MPI_Init_thread()': 1,
  'MPI_Finalize()': 1,
  'MPI_Comm_rank()': 2,
  'MPI_Comm_size()': 2,
  // point-to-point, blocking
  'MPI_Ssend()': 2,
  'MPI_Rsend()': 1,
  'MPI_Bsend()': 1,
  'MPI_Send()': 2,
  'MPI_Recv()': 5,
  'MPI_Sendrecv_replace()': 2,
  'MPI_Probe()': 1,
  // non-blocking and completion
  'MPI_Irecv()': 10,
  'MPI_Isend()': 8,
  'MPI_Issend()': 1,
  'MPI_Wait()': 5,
  'MPI_Waitany()': 3,
  'MPI_Waitall()': 7,
  // persistent
  'MPI_Recv_init()': 1,
  'MPI_Send_init()': 1,
  'MPI_Startall()': 3,
  'MPI_Start()': 2,
  'MPI_Request_free()': 2,
  // collectives
  'MPI_Barrier()': 2,
  'MPI_Scatter()': 1,
  'MPI_Scatterv()': 1,
  'MPI_Gatherv()': 1,
  'MPI_Allgather()': 1,
  'MPI_Allgatherv()': 1,
  'MPI_Alltoall()': 1,
  'MPI_Alltoallv()': 1,
  'MPI_Reduce_scatter()': 1,
  'MPI_Reduce_scatter_block()': 1,
  'MPI_Scan()': 1,
  'MPI_Exscan()': 1,
  'MPI_Ibarrier()': 1,
  'MPI_Ibcast()': 1,
  'MPI_Iallreduce()': 1,
  'MPI_Ireduce()': 1,
  'MPI_Igather()': 1,
  'MPI_Iscatter()': 1,
  'MPI_Iallgather()': 1,
  'MPI_Ialltoall()': 1,
  'MPI_Ireduce_scatter_block()': 1,
  'MPI_Iscan()': 1,
  // communicators
  'MPI_Comm_split()': 1,
  'MPI_Comm_split_type()': 1,
  'MPI_Comm_dup()': 1,
  'MPI_Comm_create()': 1,
  'MPI_Cart_create()': 1,
  'MPI_Comm_free()': 5,
  // one-sided
  'MPI_Win_create()': 1,
  'MPI_Win_allocate()': 1,
  'MPI_Win_fence()': 4,
  'MPI_Put()': 2,
  'MPI_Get()': 1,
  'MPI_Accumulate()': 1,
  'MPI_Win_lock()': 1,
  'MPI_Win_unlock()': 1,
  'MPI_Win_lock_all()': 1,
  'MPI_Win_flush()': 1,
  'MPI_Win_unlock_all()': 1,
  'MPI_Win_free()': 2,
};

/** Calls made in a loop until something completed: how many times depends on timing. */
const AT_LEAST_ONCE = ['MPI_Iprobe()', 'MPI_Waitsome()', 'MPI_Testall()', 'MPI_Testany()', 'MPI_Testsome()'];

/** The bytes of rank r of n (count of values, sum), as docs/mpi.md counts each call. */
function expectedBytes(r: number, n: number): Record<string, { count: number; sum: number }> {
  return {
    'Message size sent to all nodes': { count: 24, sum: 542 },
    'Message size received from all nodes': { count: 22, sum: 530 },
    'Message size for scatter': { count: 3, sum: 8 + 4 * (r + 1) + 4 },
    'Message size for gather': { count: 2, sum: 4 * (r + 1) + 4 },
    'Message size for all-gather': { count: 3, sum: 12 + 8 * (r + 1) + 4 },
    'Message size for all-to-all': { count: 3, sum: 4 * n + 8 * n + 4 * n },
    'Message size for reduce-scatter': { count: 3, sum: 2 * n * (n + 1) + 16 * n + 4 * n },
    'Message size for scan': { count: 3, sum: 12 + 8 + 4 },
    'Message size for broadcast': { count: 1, sum: 16 },
    'Message size for all-reduce': { count: 1, sum: 16 },
    'Message size for reduce': { count: 1, sum: 4 },
  };
}

function assertCalls(t: import('ava').ExecutionContext, profile: TauProfile, n: number): void {
  const nodes = [...new Set(profile.threads[0].map((x) => x.node))].sort((a, b) => a - b);
  t.deepEqual(nodes, [...Array(n).keys()], 'one node per rank');
  for (let r = 0; r < n; r++) {
    const m = rankMain(profile, r);
    t.truthy(m, `profile.${r}.0.0`);
    for (const [name, count] of Object.entries(EXACT)) {
      t.is(calls(m, name), count, `rank ${r}: ${name}`);
      t.is(m?.events.find((e) => e.name === name)?.group, 'MPI', `rank ${r}: ${name} is in group MPI`);
    }
    for (const name of AT_LEAST_ONCE) t.true(calls(m, name) >= 1, `rank ${r}: ${name}`);
    t.true(calls(m, 'MPI_Waitsome()') <= 2, `rank ${r}: MPI_Waitsome() once or twice for two receives`);
    for (const [name, want] of Object.entries(expectedBytes(r, n))) t.deepEqual(userEvent(m, name), want, `rank ${r}: ${name}`);
    t.is(m?.metadata.find(([k]) => k === 'MPI Thread Level')?.[1], 'MPI_THREAD_FUNNELED');
  }
}

test.serial('hyprof run -- mpirun -np 3: every wrapped family, exact calls and bytes on every rank', async (t) => {
  if (missing) return t.fail(missing);
  const app = compileMpiC('mpi_calls', 'mpi_calls.c');
  const dir = tmpDir('mpi-calls');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(3), app]);
  t.is(r.code, 0, r.stderr);
  assertCalls(t, readTauProfileDir(dir), 3);
  const tau = readWithTau(dir);
  t.true(tau.ok, tauReaderComplaints(tau));
});

test.serial('linked, mpirun -np 4 and mpirun -np 4 hyprof run: the same calls, bytes that follow the number of ranks', async (t) => {
  if (missing) return t.fail(missing);
  const linked = compileMpiC('mpi_calls_linked', 'mpi_calls.c', true);
  const dir = tmpDir('mpi-calls-linked');
  const env = { HYPROF_DIR: dir, HYPROF_SAMPLING: '0' };
  const r = await run('mpirun', [...mpirunArgs(4), '-x', 'HYPROF_DIR', '-x', 'HYPROF_SAMPLING', linked], { env });
  t.is(r.code, 0, r.stderr);
  assertCalls(t, readTauProfileDir(dir), 4);
  t.true(readWithTau(dir).ok);

  const app = compileMpiC('mpi_calls', 'mpi_calls.c');
  const inside = tmpDir('mpi-calls-inside');
  const r2 = await run('mpirun', [...mpirunArgs(4), process.execPath, cliPath, 'run', '--dir', inside, '--', app]);
  t.is(r2.code, 0, r2.stderr);
  assertCalls(t, readTauProfileDir(inside), 4);
});
