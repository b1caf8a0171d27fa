/* MPI-IO: what the file calls moved, as TAU's MPI-IO wrappers record it (TauMpiExtensions.c): per
 * read or write, the bytes asked for (count × size of the datatype) as the context event
 * "MPI-IO Bytes Read" / "MPI-IO Bytes Written", and for the blocking calls the call's bandwidth in
 * MB/s (bytes per microsecond of the call) as "MPI-IO Read Bandwidth (MB/s)" / "MPI-IO Write
 * Bandwidth (MB/s)". Context events, as TAU's: each value is also recorded under
 * "<name> : <the running timers>", whose innermost is the MPI-IO call itself (the wrapper triggers
 * them before its timer stops). A non-blocking call (iread, iwrite) counts its bytes when posted
 * and no bandwidth: its time is not the transfer's. */
#include <time.h>

#include "mpi_int.h"

#include "hyprof.h"

enum { IO_BYTES_READ, IO_BYTES_WRITTEN, IO_BW_READ, IO_BW_WRITE, IO_N };
static const char *const names[IO_N] = {
  "MPI-IO Bytes Read", "MPI-IO Bytes Written", "MPI-IO Read Bandwidth (MB/s)", "MPI-IO Write Bandwidth (MB/s)",
};
static hyprof_user_event_t handles[IO_N];

static void trigger(int which, double value) {
  hyprof_user_event_t h = __atomic_load_n(&handles[which], __ATOMIC_ACQUIRE);
  if (!h) {
    h = hyprof_user_event(names[which]);   /* two threads racing get the same handle */
    if (!h) return;
    __atomic_store_n(&handles[which], h, __ATOMIC_RELEASE);
  }
  hyprof_context_event_trigger(h, value);
}

uint64_t hp_io_start(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hp_io_done(int write, int count, MPI_Datatype datatype, uint64_t start_ns) {
  double bytes = hp_bytes(count, datatype);
  trigger(write ? IO_BYTES_WRITTEN : IO_BYTES_READ, bytes);
  if (!start_ns) return;
  double us = (double)(hp_io_start() - start_ns) / 1000.0;
  if (us > 0) trigger(write ? IO_BW_WRITE : IO_BW_READ, bytes / us);
}
