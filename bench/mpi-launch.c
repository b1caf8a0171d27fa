/* bench/mpi-launch.ts: an MPI rank that reports what its launch form costs in memory. Each rank walks
 * its ancestors up to the MPI launcher's daemon (Open MPI's orted / prted, or mpirun itself): those
 * between are processes of its launch form that live beside it for the whole run (a `hyprof run` per
 * rank); their VmRSS is summed over ranks. Rank 0 also walks above the launcher up to the
 * benchmark's timer (bench/cputime.c): processes of the job as a whole (one `hyprof run` around
 * mpirun). Then `work_ms` of computation, so the job is not only start-up.
 * Prints: "per-rank <processes> <kB>" and "per-job <processes> <kB>" (rank 0). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The parent pid, comm and VmRSS (kB) of a process from /proc/<pid>/status; 0 when gone. */
static int proc_info(long pid, long *ppid, char *comm, size_t cap, long *rss_kb) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  *ppid = -1;
  *rss_kb = 0;
  comm[0] = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "Name:", 5) == 0) {
      char *s = line + 5;
      while (*s == ' ' || *s == '\t') s++;
      s[strcspn(s, "\n")] = 0;
      snprintf(comm, cap, "%s", s);
    } else if (strncmp(line, "PPid:", 5) == 0) {
      *ppid = atol(line + 5);
    } else if (strncmp(line, "VmRSS:", 6) == 0) {
      *rss_kb = atol(line + 6);
    }
  }
  fclose(f);
  return 1;
}

static int is_launcher(const char *comm) {
  return strcmp(comm, "orted") == 0 || strcmp(comm, "prted") == 0 || strcmp(comm, "mpirun") == 0 ||
         strcmp(comm, "orterun") == 0 || strcmp(comm, "prterun") == 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank started: the launch forms' processes all exist */
  long mine[2] = {0, 0}, job[2] = {0, 0};
  long pid = getppid(), ppid, rss;
  char comm[64];
  int above = 0;
  while (pid > 1 && proc_info(pid, &ppid, comm, sizeof comm, &rss)) {
    if (strcmp(comm, "cputime") == 0) break; /* the benchmark's timer: above the job */
    if (is_launcher(comm)) above = 1;
    else if (!above) {
      mine[0]++;
      mine[1] += rss;
    } else if (rank == 0) {
      job[0]++;
      job[1] += rss;
    }
    pid = ppid;
  }
  long sum[2];
  MPI_Reduce(mine, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  double work_ms = argc > 1 ? atof(argv[1]) : 200;
  struct timespec t0, t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  volatile double x = 0;
  do {
    for (int i = 1; i < 100000; i++) x += 1.0 / i;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) * 1e-6 < work_ms);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("per-rank %ld %ld\nper-job %ld %ld\n", sum[0], sum[1], job[0], job[1]);
  MPI_Finalize();
  return 0;
}
