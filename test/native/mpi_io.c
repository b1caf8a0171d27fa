/* MPI-IO with known bytes, for test/mpi-io.test.ts: every rank writes a file of its own and reads it
 * back, then all ranks write and read one shared file collectively. `mpi_io DIR`. Exits 1 (and says
 * why) when what is read back differs from what was written.
 *
 * EXPECTED per rank (N ranks):
 *   own file DIR/rank.<r> (MPI_COMM_SELF), 12100 bytes:
 *     MPI_File_open 1, MPI_File_set_view 1 (bytes, "native"), MPI_File_write 1 x 1000 ints (4000 B),
 *     MPI_File_write_at 2 x 500 doubles at 4000 (4000 B each), MPI_File_iwrite_at 1 x 100 chars at
 *     12000 (100 B) + MPI_Wait, MPI_File_sync 1, MPI_File_seek 1 (to 0), MPI_File_read 1 x 1000
 *     ints (4000 B), MPI_File_read_at 1 x 500 doubles at 4000 (4000 B), MPI_File_iread_at 1 x 100
 *     chars at 12000 (100 B) + MPI_Wait, MPI_File_close 1
 *   shared file DIR/shared (MPI_COMM_WORLD), N x 384 bytes:
 *     MPI_File_open 1, MPI_File_write_at_all 1 x 256 B at r*256, MPI_File_read_at_all 1 x 256 B,
 *     MPI_File_set_view 1 (displacement N*256 + r*128), MPI_File_write_all 1 x 128 B,
 *     MPI_File_read_all 1 x 128 B (after MPI_File_seek 1 to 0), MPI_File_close 1
 *   ordered file DIR/ordered (MPI_COMM_WORLD), N x 128 bytes:
 *     MPI_File_open 1, MPI_File_write_ordered 1 x 64 B, MPI_File_seek_shared 1, MPI_File_read_ordered
 *     1 x 64 B, MPI_File_set_view 1 (displacement N*64 + r*64), split collectives: write_all_begin
 *     32 B + _end, write_at_all_begin 32 B at 32 + _end, MPI_File_seek 1, read_all_begin 32 B + _end,
 *     read_at_all_begin 32 B at 32 + _end, MPI_File_close 1
 *   shared-pointer file DIR/sharedfp (MPI_COMM_WORLD), N x 16 bytes: MPI_File_open 1,
 *     MPI_File_write_shared 1 x 16 B, MPI_File_sync 1, MPI_Barrier 1, MPI_File_seek_shared 1,
 *     MPI_File_read_shared 1 x 16 B, MPI_File_close 1
 *   => MPI-IO Bytes Written: 10 values, 12628 B; MPI-IO Bytes Read: 9 values, 8628 B
 *      (Bandwidth events: the blocking calls only, 7 writes and 6 reads: a split collective's
 *      _begin counts its bytes with no bandwidth) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int fail(int rank, const char *what) {
  fprintf(stderr, "mpi_io: rank %d: %s\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) return fail(rank, "usage: mpi_io DIR");
  char path[4096];
  MPI_File fh;
  MPI_Request req;

  int ints[1000], ints_in[1000];
  double dbl[500], dbl_in[500];
  char chars[100], chars_in[100];
  for (int i = 0; i < 1000; i++) ints[i] = rank * 100000 + i;
  for (int i = 0; i < 500; i++) dbl[i] = rank + i / 8.0;
  for (int i = 0; i < 100; i++) chars[i] = (char)('a' + (rank + i) % 26);

  snprintf(path, sizeof path, "%s/rank.%d", argv[1], rank);
  if (MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    return fail(rank, "cannot open its own file");
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_File_write(fh, ints, 1000, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_write_at(fh, 4000, dbl, 500, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_write_at(fh, 4000, dbl, 500, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_iwrite_at(fh, 12000, chars, 100, MPI_CHAR, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_File_sync(fh);
  MPI_File_seek(fh, 0, MPI_SEEK_SET);
  MPI_File_read(fh, ints_in, 1000, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_read_at(fh, 4000, dbl_in, 500, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_iread_at(fh, 12000, chars_in, 100, MPI_CHAR, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  if (memcmp(ints, ints_in, sizeof ints) || memcmp(dbl, dbl_in, sizeof dbl) || memcmp(chars, chars_in, sizeof chars))
    return fail(rank, "its own file reads back differently");

  char block[256], block_in[256], small[128], small_in[128];
  for (int i = 0; i < 256; i++) block[i] = (char)(rank * 7 + i);
  for (int i = 0; i < 128; i++) small[i] = (char)(rank * 3 + i * 5);
  snprintf(path, sizeof path, "%s/shared", argv[1]);
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    return fail(rank, "cannot open the shared file");
  MPI_File_write_at_all(fh, (MPI_Offset)rank * 256, block, 256, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_read_at_all(fh, (MPI_Offset)rank * 256, block_in, 256, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_set_view(fh, (MPI_Offset)size * 256 + rank * 128, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, small, 128, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_seek(fh, 0, MPI_SEEK_SET);
  MPI_File_read_all(fh, small_in, 128, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  if (memcmp(block, block_in, sizeof block) || memcmp(small, small_in, sizeof small))
    return fail(rank, "the shared file reads back differently");

  /* Ordered access and split collectives. */
  char ord[64], ord_in[64], split[64], split_in[64];
  for (int i = 0; i < 64; i++) ord[i] = (char)(rank * 11 + i), split[i] = (char)(rank * 13 + i * 3);
  snprintf(path, sizeof path, "%s/ordered", argv[1]);
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    return fail(rank, "cannot open the ordered file");
  MPI_File_write_ordered(fh, ord, 64, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
  MPI_File_read_ordered(fh, ord_in, 64, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_set_view(fh, (MPI_Offset)size * 64 + rank * 64, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_File_write_all_begin(fh, split, 32, MPI_BYTE);
  MPI_File_write_all_end(fh, split, MPI_STATUS_IGNORE);
  MPI_File_write_at_all_begin(fh, 32, split + 32, 32, MPI_BYTE);
  MPI_File_write_at_all_end(fh, split + 32, MPI_STATUS_IGNORE);
  MPI_File_seek(fh, 0, MPI_SEEK_SET);
  MPI_File_read_all_begin(fh, split_in, 32, MPI_BYTE);
  MPI_File_read_all_end(fh, split_in, MPI_STATUS_IGNORE);
  MPI_File_read_at_all_begin(fh, 32, split_in + 32, 32, MPI_BYTE);
  MPI_File_read_at_all_end(fh, split_in + 32, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  if (memcmp(ord, ord_in, sizeof ord) || memcmp(split, split_in, sizeof split))
    return fail(rank, "the ordered file reads back differently");

  /* The shared file pointer: each rank's 16 bytes land in an order MPI chooses. */
  char mine[16], got[16];
  for (int i = 0; i < 16; i++) mine[i] = (char)(100 + rank);
  snprintf(path, sizeof path, "%s/sharedfp", argv[1]);
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    return fail(rank, "cannot open the shared-pointer file");
  MPI_File_write_shared(fh, mine, 16, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
  MPI_File_read_shared(fh, got, 16, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  for (int i = 1; i < 16; i++)
    if (got[i] != got[0] || got[0] < 100 || got[0] >= 100 + size) return fail(rank, "the shared-pointer file reads back differently");
  printf("rank %d ok\n", rank);
  MPI_Finalize();
  return 0;
}
