/* Which MPI rank this process is, without a code change, and which processes are launchers.
 *
 * - Launchers (mpirun / mpiexec and their daemons: Open MPI's orterun, orted, prte, prted; MPICH's
 *   Hydra; Slurm's srun) inherit the LD_PRELOAD of `hyprof run -- mpirun ...` and pass it on to the
 *   ranks. They are never measured: the runtime stays inert in them (no thread state, no raw file).
 * - A rank's number comes from its launcher's environment at start (the first of the variables below
 *   that holds a whole number) and, when the MPI layer is loaded, from MPI_Comm_rank(MPI_COMM_WORLD)
 *   at MPI_Init (hyprof_ext_set_rank, ext_module.c). node = that rank.
 *
 * The environment is only a hint of which rank a process belongs to: a program a rank starts
 * (system(), a wrapper script) inherits it too. So a process that has a rank from the environment
 * but never called MPI_Init writes as context = its pid (docs/mpi.md), and only the process that
 * called MPI_Init owns profile.<rank>.0.*; the TypeScript side decides that from the INFO flags. */
#include "rank.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "meta.h"
#include "runtime.h"

/* Executables (the basename of /proc/self/exe) of MPI launchers and their daemons. */
static const char *const launchers[] = {
  "mpirun", "mpiexec", "orterun", "orted", "prte", "prted", "prterun", "prun", "mpiexec.hydra",
  "mpiexec.mpich", "mpirun.mpich", "mpiexec.openmpi", "mpirun.openmpi", "hydra_pmi_proxy",
  "hydra_nameserver", "hydra_persist", "srun", "slurmstepd", "ompi-server", NULL,
};

int hp_is_launcher(char *name, size_t cap) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 0;
  exe[n] = 0;
  const char *base = strrchr(exe, '/');
  base = base ? base + 1 : exe;
  for (int i = 0; launchers[i]; i++) {
    if (strcmp(base, launchers[i]) == 0) {
      if (name && cap) {
        strncpy(name, base, cap - 1);
        name[cap - 1] = 0;
      }
      return 1;
    }
  }
  /* hyprof's own per-rank launcher, bin/hyprof-exec: a shell script (the executable is the shell, the
   * process's name the script's), which inherits the LD_PRELOAD of `hyprof run -- mpirun ...
   * hyprof-exec ./app` and execs the rank's program without starting any process. */
  char comm[32];
  if (hp_read_small_file("/proc/self/comm", comm, sizeof comm) > 0 && strcmp(comm, "hyprof-exec") == 0) {
    if (name && cap) {
      strncpy(name, comm, cap - 1);
      name[cap - 1] = 0;
    }
    return 1;
  }
  return 0;
}

/* A whole number in [0, INT_MAX) from the variable, else -1. */
static long env_number(const char *name) {
  const char *v = getenv(name);
  if (!v || !*v) return -1;
  char *end;
  long x = strtol(v, &end, 10);
  return *end || x < 0 || x >= INT_MAX ? -1 : x;
}

/* Rank variable, its size variable, in order of trust: the MPI library's own launcher first,
 * Slurm's task numbering last (it is also set for tasks that are not MPI ranks). */
static const char *const rank_vars[][2] = {
  {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
  {"PMIX_RANK", "OMPI_COMM_WORLD_SIZE"},
  {"PMI_RANK", "PMI_SIZE"},
  {"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"},
  {"SLURM_PROCID", "SLURM_NTASKS"},
};

/* The job as the launcher names it, so that profiles of different runs in one directory can be told
 * apart (docs/mpi.md, "stale files"). */
static void job_id(char *out, size_t cap) {
  const char *ompi = getenv("OMPI_MCA_ess_base_jobid");
  const char *pmix = getenv("PMIX_NAMESPACE");
  const char *slurm_job = getenv("SLURM_JOB_ID");
  const char *slurm_step = getenv("SLURM_STEP_ID");
  out[0] = 0;
  if (ompi && *ompi)
    snprintf(out, cap, "openmpi:%s", ompi);
  else if (pmix && *pmix)
    snprintf(out, cap, "pmix:%s", pmix);
  else if (slurm_job && *slurm_job)
    snprintf(out, cap, "slurm:%s.%s", slurm_job, slurm_step && *slurm_step ? slurm_step : "0");
}

void hp_rank_from_env(void) {
  for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
    long rank = env_number(rank_vars[i][0]);
    const char *set = getenv(rank_vars[i][0]);
    if (rank < 0 && set && *set)
      hp_warn("%s=%s is not a rank (a whole number): this process's rank is not taken from it", rank_vars[i][0], set);
    if (rank < 0) continue;
    long size = env_number(rank_vars[i][1]);
    const char *size_set = getenv(rank_vars[i][1]);
    if (size_set && *size_set && size <= rank)
      hp_warn("%s=%s is not a number of ranks above %s=%ld: the size of the run is not known", rank_vars[i][1], size_set,
              rank_vars[i][0], rank);
    hp_rt.node = (int)rank;
    hp_rt.rank_from_env = 1;
    hp_rt.world_size = size > rank ? (int)size : 0;
    hp_meta_add_long("MPI Rank", rank);
    hp_meta_add("MPI Rank Source", rank_vars[i][0]);
    if (hp_rt.world_size) hp_meta_add_long("MPI World Size", hp_rt.world_size);
    char id[256];
    job_id(id, sizeof id);
    if (id[0]) hp_meta_add("MPI Run Id", id);
    return;
  }
}
