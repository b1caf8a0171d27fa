/* The sampling half of the configuration: reads HYPROF_* (TAU_* aliases) once at initialisation
 * into hp_scfg. Kept apart from the core's config.c because only sampling uses these variables and
 * because choosing a source needs knowledge of perf and PAPI names. Malformed values warn once
 * (through the core's helpers) and fall back to the default. */
#define _GNU_SOURCE
#include <ctype.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/config.h"
#include "sample_int.h"

hp_sample_config hp_scfg;

typedef struct {
  const char *name;
  hp_src_kind kind;
  uint32_t type;
  uint64_t config;
  int time_based;           /* period given in microseconds (converted to ns for the kernel) */
  int thread_cpu;           /* paced by the thread's CPU time: a sample weighs the CPU time since the last */
} src_def;

static const src_def sources[] = {
  {"itimer-wall", HP_SRC_ITIMER_WALL, 0, 0, 1, 0},
  {"itimer", HP_SRC_ITIMER_WALL, 0, 0, 1, 0},         /* TAU's name */
  {"TIME", HP_SRC_ITIMER_WALL, 0, 0, 1, 0},           /* TAU's name */
  {"itimer-cpu", HP_SRC_ITIMER_CPU, 0, 0, 1, 1},
  /* perf's clocks count the thread's time on a CPU (a per-thread event: task-clock and cpu-clock
   * alike), paced by a high-resolution timer while it runs, where the POSIX CPU timer of itimer-cpu
   * is checked at scheduler ticks; their samples weigh CPU time too, else a thread that waited to
   * run would put that wait on wherever it resumed (2.4x the CPU time beside a CPU hog) */
  {"task-clock", HP_SRC_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1, 1},
  {"cpu-clock", HP_SRC_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1, 1},
  {"page-faults", HP_SRC_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 0},
  {"context-switches", HP_SRC_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0},
  {"cycles", HP_SRC_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0},
  {"instructions", HP_SRC_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0},
};

void hp_sample_config_use_wall(void) {
  hp_scfg.kind = HP_SRC_ITIMER_WALL;
  hp_scfg.thread_cpu = 0;
  strcpy(hp_scfg.source, "itimer-wall");
  hp_scfg.period_ns = hp_scfg.period_us * 1000u;
}

/* Accepts "SIGPROF", "PROF", "27", "SIGRTMIN+3", "RTMIN+3". Returns 0 when not acceptable. */
static int parse_signal(const char *s) {
  static const struct { const char *n; int v; } names[] = {
    {"PROF", SIGPROF}, {"ALRM", SIGALRM}, {"VTALRM", SIGVTALRM}, {"USR1", SIGUSR1},
    {"USR2", SIGUSR2}, {"IO", SIGIO}, {"POLL", SIGIO}, {"URG", SIGURG}, {"WINCH", SIGWINCH},
  };
  int v = 0;
  if (strncasecmp(s, "SIG", 3) == 0) s += 3;
  if (isdigit((unsigned char)s[0])) {
    char *end;
    long l = strtol(s, &end, 10);
    if (*end || l <= 0 || l > SIGRTMAX) return 0;
    v = (int)l;
  } else if (strncasecmp(s, "RTMIN", 5) == 0) {
    long off = 0;
    if (s[5] == '+') {
      char *end;
      off = strtol(s + 6, &end, 10);
      if (*end || off < 0) return 0;
    } else if (s[5]) {
      return 0;
    }
    if (SIGRTMIN + off > SIGRTMAX) return 0;
    v = SIGRTMIN + (int)off;
  } else {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (strcasecmp(s, names[i].n) == 0) v = names[i].v;
  }
  /* Signals the kernel or the program need for themselves cannot carry samples. */
  if (v == SIGKILL || v == SIGSTOP || v == SIGSEGV || v == SIGBUS || v == SIGILL || v == SIGFPE ||
      v == SIGABRT || v == SIGTRAP || v == SIGCHLD || v == SIGCONT || v == SIGTERM || v == SIGINT)
    return 0;
  return v;
}

void hp_sample_config_read(void) {
  const char *used;
  memset(&hp_scfg, 0, sizeof hp_scfg);
  hp_scfg.enabled = hp_env_bool("HYPROF_SAMPLING", "TAU_SAMPLING", 0);
  hp_scfg.period_us = (uint64_t)hp_env_long("HYPROF_PERIOD_US", "TAU_EBS_PERIOD", 1000, 10, 1000000000L);
  hp_scfg.unwind = hp_env_bool("HYPROF_UNWIND", "TAU_EBS_UNWIND", 1);
  /* "auto" is how TAU writes depth 0 in its metadata: accept it back. Unset: complete stacks in a
   * Node process (V8 keeps frame pointers, so JavaScript frames unwind cheaply, and resolve keeps
   * TAU's 10-frame chains in the profile and the rest in its stacks file), TAU's 10 elsewhere. */
  const char *depth = hp_env("HYPROF_UNWIND_DEPTH", "TAU_EBS_UNWIND_DEPTH", &used);
  if (depth && strcasecmp(depth, "auto") == 0)
    hp_scfg.unwind_depth = 0;
  else
    hp_scfg.unwind_depth = (uint32_t)hp_env_long("HYPROF_UNWIND_DEPTH", "TAU_EBS_UNWIND_DEPTH",
                                                 (!depth || !*depth) && hp_node_process() ? 0 : 10, 0,
                                                 HP_SAMPLE_MAX_DEPTH);
  static const char *const unwinders[] = {"libunwind", "fp", NULL};
  hp_scfg.unwinder = hp_env_choice("HYPROF_UNWINDER", NULL, unwinders, 0) == 1 ? HP_UNW_FP : HP_UNW_LIBUNWIND;
  /* The most records a thread holds. Only mapped room: the memory used grows with the distinct
   * stacks (table.c), so the default is large enough for an ordinary run with complete stacks
   * (the TypeScript compiler dropped 44 % of its samples as table_full with 16384). */
  hp_scfg.table_entries = (uint32_t)hp_env_long("HYPROF_SAMPLE_TABLE", NULL, 262144, 64, 1 << 24);
  /* program counters per record on average: complete stacks are deeper (pages are committed only
   * when touched, table.c) */
  hp_scfg.arena_pcs = hp_scfg.table_entries * (hp_scfg.unwind_depth == 0 ? 128u : 16u);

  hp_scfg.signo = SIGPROF;
  const char *sig = hp_env("HYPROF_SIGNAL", NULL, &used);
  if (sig && *sig) {
    int v = parse_signal(sig);
    if (v) hp_scfg.signo = v;
    else hp_warn("%s=%s is not a usable signal (a name like SIGPROF or a number); using SIGPROF", used, sig);
  }

  hp_service_config_read();
  hp_sample_config_use_wall();
  const char *src = hp_env("HYPROF_SAMPLE_SOURCE", "TAU_EBS_SOURCE", &used);
  if (!src || !*src) return;
  for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
    if (strcasecmp(src, sources[i].name) != 0) continue;
    hp_scfg.kind = sources[i].kind;
    /* the canonical name, so "itimer"/"TIME" read back as what they are */
    strcpy(hp_scfg.source, sources[i].kind == HP_SRC_ITIMER_WALL ? "itimer-wall" : sources[i].name);
    hp_scfg.perf_type = sources[i].type;
    hp_scfg.perf_config = sources[i].config;
    hp_scfg.period_ns = sources[i].time_based ? hp_scfg.period_us * 1000u : hp_scfg.period_us;
    hp_scfg.thread_cpu = sources[i].thread_cpu;
    return;
  }
  if (strncmp(src, "PAPI_", 5) == 0 && strlen(src) < sizeof hp_scfg.source) {
    hp_scfg.kind = HP_SRC_PAPI;
    strcpy(hp_scfg.source, src);
    hp_scfg.period_ns = hp_scfg.period_us;
    return;
  }
  hp_warn("%s=%s is not a known sampling source (itimer-wall, itimer-cpu, task-clock, cpu-clock, "
          "page-faults, context-switches, cycles, instructions, PAPI_*); using itimer-wall",
          used, src);
}
