/**
 * MPI-IO: the common file calls (open, close, read / write and their _at, _all, _at_all,
 * non-blocking, shared-pointer, ordered and split-collective forms, seek, seek_shared, set_view,
 * sync) are MPI timers, and what they read and wrote is TAU's
 * "MPI-IO Bytes Read" / "MPI-IO Bytes Written" (context events, with the call as the context's
 * innermost timer) and, for blocking calls, the bandwidth events; from C and from Fortran (`use
 * mpi`, whose file name is a CHARACTER argument with a hidden length). Real Open MPI, a file per rank
 * and a shared one in a temporary directory, read back and compared by the programs themselves.
 */
import test from 'ava';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { hyprof, tmpDir } from './helpers/native.js';
import { calls, compileMpiC, compileMpiFortran, mpiMissing, mpirunArgs, rankMain, userEvent } from './helpers/mpi.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

const missing = mpiMissing();

test('C MPI-IO: exact calls, bytes read and written per rank, context and bandwidth events', async (t) => {
  if (missing) return t.fail(missing);
  const exe = compileMpiC('mpi_io', 'mpi_io.c');
  const files = tmpDir('mpi-io-files');
  const dir = tmpDir('mpi-io');
  const n = 3;
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(n), exe, files]);
  t.is(r.code, 0, r.stderr);
  for (let rank = 0; rank < n; rank++) t.regex(r.stdout, new RegExp(`rank ${rank} ok`), 'the data read back is what was written');
  for (let rank = 0; rank < n; rank++) t.is(statSync(join(files, `rank.${rank}`)).size, 12100);
  t.is(statSync(join(files, 'shared')).size, n * 384);
  t.is(statSync(join(files, 'ordered')).size, n * 128);
  t.is(statSync(join(files, 'sharedfp')).size, n * 16);

  const profile = readTauProfileDir(dir);
  for (let rank = 0; rank < n; rank++) {
    const m = rankMain(profile, rank);
    const want: Record<string, number> = {
      'MPI_File_open()': 4,
      'MPI_File_close()': 4,
      'MPI_File_set_view()': 3,
      'MPI_File_write()': 1,
      'MPI_File_write_at()': 2,
      'MPI_File_iwrite_at()': 1,
      'MPI_File_write_at_all()': 1,
      'MPI_File_write_all()': 1,
      'MPI_File_read()': 1,
      'MPI_File_read_at()': 1,
      'MPI_File_iread_at()': 1,
      'MPI_File_read_at_all()': 1,
      'MPI_File_read_all()': 1,
      'MPI_File_seek()': 3,
      'MPI_File_sync()': 2,
      'MPI_Wait()': 2,
      'MPI_File_write_ordered()': 1,
      'MPI_File_read_ordered()': 1,
      'MPI_File_seek_shared()': 2,
      'MPI_File_write_shared()': 1,
      'MPI_File_read_shared()': 1,
      'MPI_File_write_all_begin()': 1,
      'MPI_File_write_all_end()': 1,
      'MPI_File_write_at_all_begin()': 1,
      'MPI_File_write_at_all_end()': 1,
      'MPI_File_read_all_begin()': 1,
      'MPI_File_read_all_end()': 1,
      'MPI_File_read_at_all_begin()': 1,
      'MPI_File_read_at_all_end()': 1,
    };
    for (const [name, count] of Object.entries(want)) t.is(calls(m, name), count, `rank ${rank}: ${name}`);
    t.is(m?.events.find((e) => e.name === 'MPI_File_write()')?.group, 'MPI');
    t.deepEqual(userEvent(m, 'MPI-IO Bytes Written'), { count: 10, sum: 12628 }, `rank ${rank}: written`);
    t.deepEqual(userEvent(m, 'MPI-IO Bytes Read'), { count: 9, sum: 8628 }, `rank ${rank}: read`);
    // context events, as TAU's: the call is the innermost timer of the path
    t.deepEqual(userEvent(m, 'MPI-IO Bytes Written : .TAU application => MPI_File_write_at()'), { count: 2, sum: 8000 });
    t.deepEqual(userEvent(m, 'MPI-IO Bytes Read : .TAU application => MPI_File_iread_at()'), { count: 1, sum: 100 });
    t.deepEqual(userEvent(m, 'MPI-IO Bytes Written : .TAU application => MPI_File_write_at_all_begin()'), { count: 1, sum: 32 });
    t.deepEqual(userEvent(m, 'MPI-IO Bytes Read : .TAU application => MPI_File_read_shared()'), { count: 1, sum: 16 });
    t.deepEqual(userEvent(m, 'MPI-IO Bytes Read : .TAU application => MPI_File_read_all_end()'), { count: 0, sum: 0 }, "a split collective's bytes are counted once, at its _begin");
    // bandwidth: the blocking calls only (7 writes, 6 reads), each a positive MB/s
    const bw = (name: string) => m?.userEvents.find((e) => e.name === name);
    t.is(bw('MPI-IO Write Bandwidth (MB/s)')?.count, 7);
    t.is(bw('MPI-IO Read Bandwidth (MB/s)')?.count, 6);
    t.is(bw('MPI-IO Write Bandwidth (MB/s) : .TAU application => MPI_File_write_all_begin()'), undefined, 'no bandwidth for a split collective');
    t.true((bw('MPI-IO Read Bandwidth (MB/s)')?.min ?? 0) > 0);
    t.is(bw('MPI-IO Write Bandwidth (MB/s) : .TAU application => MPI_File_iwrite_at()'), undefined, 'no bandwidth for a non-blocking call');
  }
  const tau = readWithTau(dir);
  t.true(tau.ok, tauReaderComplaints(tau));
});

test('Fortran MPI-IO (use mpi): the file name passes through, calls and bytes per rank', async (t) => {
  if (missing) return t.fail(missing);
  const exe = compileMpiFortran('mpi_io_f', 'mpi_io.f90');
  const files = tmpDir('mpi-io-f-files');
  const dir = tmpDir('mpi-io-f');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(2), exe, files]);
  t.is(r.code, 0, r.stderr);
  for (let rank = 0; rank < 2; rank++) t.is(statSync(join(files, `frank.${rank}`)).size, 800, 'the file has the name the program gave');
  const profile = readTauProfileDir(dir);
  for (let rank = 0; rank < 2; rank++) {
    const m = rankMain(profile, rank);
    for (const [name, count] of Object.entries({ 'MPI_File_open()': 1, 'MPI_File_write_at()': 2, 'MPI_File_read_at()': 1, 'MPI_File_close()': 1 }))
      t.is(calls(m, name), count, `rank ${rank}: ${name}`);
    t.deepEqual(userEvent(m, 'MPI-IO Bytes Written'), { count: 2, sum: 800 });
    t.deepEqual(userEvent(m, 'MPI-IO Bytes Read'), { count: 1, sum: 400 });
  }
});
