/**
 * Fortran MPI programs (mpif90, `use mpi` and `include 'mpif.h'`): Open MPI's Fortran bindings call
 * the PMPI_* C functions directly, so only the layer's Fortran wrappers (mpi_send_ ...) see these
 * calls. Every rank's calls and bytes, exactly, and TAU's reader accepting the profile.
 */
import test from 'ava';
import { hyprof, tmpDir } from './helpers/native.js';
import { calls, compileMpiFortran, mpiMissing, mpirunArgs, rankMain, userEvent } from './helpers/mpi.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

const missing = mpiMissing();

test.serial('use mpi (Fortran 90): point-to-point, non-blocking with Waitall, collectives; exact calls and bytes', async (t) => {
  if (missing) return t.fail(missing);
  const exe = compileMpiFortran('mpi_app_f90', 'mpi_app.f90');
  const dir = tmpDir('mpi-f90');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(3), exe]);
  t.is(r.code, 0, r.stderr);
  const profile = readTauProfileDir(dir);
  for (let rank = 0; rank < 3; rank++) {
    const m = rankMain(profile, rank);
    const want: Record<string, number> = {
      'MPI_Init()': 1,
      'MPI_Comm_rank()': 1,
      'MPI_Comm_size()': 1,
      'MPI_Send()': 4,
      'MPI_Recv()': 4,
      'MPI_Isend()': 2,
      'MPI_Irecv()': 2,
      'MPI_Waitall()': 2,
      'MPI_Allreduce()': 6,
      'MPI_Bcast()': 1,
      'MPI_Barrier()': 2,
      'MPI_Finalize()': 1,
    };
    for (const [name, count] of Object.entries(want)) t.is(calls(m, name), count, `rank ${rank}: ${name}`);
    t.deepEqual(userEvent(m, 'Message size sent to all nodes'), { count: 6, sum: 360 }, `rank ${rank}: sent`);
    t.deepEqual(userEvent(m, 'Message size received from all nodes'), { count: 6, sum: 360 }, `rank ${rank}: received`);
    t.deepEqual(userEvent(m, 'Message size for all-reduce'), { count: 6, sum: 48 });
    t.deepEqual(userEvent(m, 'Message size for broadcast'), { count: 1, sum: 12 });
    t.is(m?.metadata.find(([k]) => k === 'MPI Rank')?.[1], String(rank));
    const sites = m?.metadata.find(([k]) => k === 'hyprof MPI call sites')?.[1] ?? '';
    t.regex(sites, /mpi_app\.f90:\d+/, 'call sites are the Fortran source lines');
  }
  const tau = readWithTau(dir);
  t.true(tau.ok, tauReaderComplaints(tau));
});

test.serial("include 'mpif.h' (Fortran 77, upper-case calls, status ignored): exact calls and bytes", async (t) => {
  if (missing) return t.fail(missing);
  const exe = compileMpiFortran('mpi_app_f77', 'mpi_app_f77.f');
  const dir = tmpDir('mpi-f77');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(2), exe]);
  t.is(r.code, 0, r.stderr);
  const profile = readTauProfileDir(dir);
  for (let rank = 0; rank < 2; rank++) {
    const m = rankMain(profile, rank);
    t.is(calls(m, 'MPI_Send()'), 2);
    t.is(calls(m, 'MPI_Recv()'), 2);
    t.is(calls(m, 'MPI_Allreduce()'), 3);
    t.is(calls(m, 'MPI_Barrier()'), 1);
    t.deepEqual(userEvent(m, 'Message size sent to all nodes'), { count: 2, sum: 32 });
    t.deepEqual(userEvent(m, 'Message size received from all nodes'), { count: 2, sum: 32 }, 'counted with MPI_STATUS_IGNORE too');
    t.deepEqual(userEvent(m, 'Message size for all-reduce'), { count: 3, sum: 12 });
  }
  t.true(readWithTau(dir).ok);
});

test.serial('use mpi: completions of several requests (Waitany, Waitsome, Testany, Testsome), persistent requests, MPI_IN_PLACE, one-sided; exact bytes', async (t) => {
  if (missing) return t.fail(missing);
  const exe = compileMpiFortran('mpi_calls_f90', 'mpi_calls.f90');
  const dir = tmpDir('mpi-f90-calls');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(3), exe]);
  t.is(r.code, 0, r.stderr);
  const profile = readTauProfileDir(dir);
  for (let rank = 0; rank < 3; rank++) {
    const m = rankMain(profile, rank);
    const want: Record<string, number> = {
      'MPI_Init_thread()': 1,
      'MPI_Irecv()': 7,
      'MPI_Isend()': 7,
      'MPI_Waitany()': 3,
      'MPI_Waitall()': 4,
      'MPI_Wait()': 3,
      'MPI_Recv_init()': 1,
      'MPI_Send_init()': 1,
      'MPI_Startall()': 2,
      'MPI_Request_free()': 2,
      'MPI_Allreduce()': 1,
      'MPI_Iallreduce()': 1,
      'MPI_Gather()': 1,
      'MPI_Win_create()': 1,
      'MPI_Win_fence()': 3,
      'MPI_Put()': 1,
      'MPI_Get()': 1,
      'MPI_Win_free()': 1,
      'MPI_Comm_split()': 1,
      'MPI_Comm_free()': 1,
      'MPI_Finalize()': 1,
    };
    for (const [name, count] of Object.entries(want)) t.is(calls(m, name), count, `rank ${rank}: ${name}`);
    for (const name of ['MPI_Waitsome()', 'MPI_Testany()', 'MPI_Testsome()']) t.true(calls(m, name) >= 1, `rank ${rank}: ${name}`);
    // Statuses of an array are MPI_STATUS_SIZE integers apart: a second receive completed by one
    // MPI_Waitsome (or MPI_Waitall) is read from the right place.
    t.deepEqual(userEvent(m, 'Message size sent to all nodes'), { count: 10, sum: 116 }, `rank ${rank}: sent`);
    t.deepEqual(userEvent(m, 'Message size received from all nodes'), { count: 10, sum: 116 }, `rank ${rank}: received`);
    t.deepEqual(userEvent(m, 'Message size for all-reduce'), { count: 2, sum: 32 }, 'MPI_IN_PLACE counts its buffer');
    t.deepEqual(userEvent(m, 'Message size for gather'), { count: 1, sum: 8 }, 'the root in place counts its block');
  }
  const tau = readWithTau(dir);
  t.true(tau.ok, tauReaderComplaints(tau));
});

test.serial('use mpi_f08 (Fortran 2008, gfortran): Init / Finalize, point-to-point, Wait, collectives; exact calls, bytes, the rank, call sites', async (t) => {
  if (missing) return t.fail(missing);
  const exe = compileMpiFortran('mpi_f08', 'mpi_f08.f90');
  const dir = tmpDir('mpi-f08');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(3), exe]);
  t.is(r.code, 0, r.stderr);
  const profile = readTauProfileDir(dir);
  for (let rank = 0; rank < 3; rank++) {
    t.regex(r.stdout, new RegExp(`rank ${rank} ok`));
    const m = rankMain(profile, rank);
    t.is(m?.metadata.find(([k]) => k === 'MPI Rank Source')?.[1], 'MPI_Comm_rank', 'MPI_Init was seen: the rank is the library\'s');
    const want: Record<string, number> = {
      'MPI_Init()': 1,
      'MPI_Send()': 3,
      'MPI_Recv()': 3,
      'MPI_Isend()': 2,
      'MPI_Irecv()': 2,
      'MPI_Wait()': 4,
      'MPI_Allreduce()': 2,
      'MPI_Bcast()': 1,
      'MPI_Reduce()': 1,
      'MPI_Barrier()': 2,
      'MPI_Finalize()': 1,
    };
    for (const [name, count] of Object.entries(want)) t.is(calls(m, name), count, `rank ${rank}: ${name}`);
    t.deepEqual(userEvent(m, 'Message size sent to all nodes'), { count: 5, sum: 128 }, `rank ${rank}: sent`);
    t.deepEqual(userEvent(m, 'Message size received from all nodes'), { count: 5, sum: 128 }, `rank ${rank}: received`);
    t.deepEqual(userEvent(m, 'Message size for all-reduce'), { count: 2, sum: 64 });
    t.deepEqual(userEvent(m, 'Message size for broadcast'), { count: 1, sum: 24 });
    t.deepEqual(userEvent(m, 'Message size for reduce'), { count: 1, sum: 8 });
    const sites = m?.metadata.find(([k]) => k === 'hyprof MPI call sites')?.[1] ?? '';
    t.regex(sites, /"call":"MPI_Send\(\)".*mpi_f08\.f90:\d+/, 'call sites are the Fortran source lines');
  }
  const tau = readWithTau(dir);
  t.true(tau.ok, tauReaderComplaints(tau));
});
