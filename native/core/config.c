/* Environment configuration. hyprof's own names win over TAU's aliases so that a job script written
 * for TAU keeps working and can be overridden. Each malformed variable warns once (at init). */
#include "config.h"
#include "runtime.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

hp_config hp_cfg;

/* A warning is one line however long the values in it (a variable may hold thousands of characters):
 * a longer message keeps its start and its end, where the value used is said, around " [...] ". */
#define WARN_HEAD 600
#define WARN_TAIL 300

void hp_warn(const char *fmt, ...) {
  char line[8 + WARN_HEAD + 7 + WARN_TAIL + 2] = "hyprof: ";
  const size_t room = WARN_HEAD + 7 + WARN_TAIL; /* message characters that fit as they are */
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(line + 8, room + 1, fmt, ap);
  va_end(ap);
  size_t len = 8;
  if (n < 0) {
    va_end(again);
    return;
  }
  if ((size_t)n <= room) {
    len += (size_t)n;
  } else {
    char *msg = malloc((size_t)n + 1);
    if (msg) {
      vsnprintf(msg, (size_t)n + 1, fmt, again);
      memcpy(line + 8 + WARN_HEAD, " [...] ", 7);
      memcpy(line + 8 + WARN_HEAD + 7, msg + n - WARN_TAIL, WARN_TAIL);
      free(msg);
    } else {
      memcpy(line + 8 + room - 3, "...", 3); /* no memory for the end: say it is cut */
    }
    len += room;
  }
  va_end(again);
  line[len++] = '\n';
  hp_stderr_write(line, len); /* one write: lines of threads do not interleave */
}

const char *hp_env(const char *name, const char *alias, const char **used) {
  const char *v = getenv(name);
  if (v && *v) {
    if (used) *used = name;
    return v;
  }
  if (alias) {
    v = getenv(alias);
    if (v && *v) {
      if (used) *used = alias;
      return v;
    }
  }
  if (used) *used = name;
  return NULL;
}

int hp_bool_word(const char *v) {
  static const char *const yes[] = {"1", "on", "true", "yes", "enable", "enabled"};
  static const char *const no[] = {"0", "off", "false", "no", "disable", "disabled"};
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
    if (!strcasecmp(v, yes[i])) return 1;
  for (size_t i = 0; i < sizeof no / sizeof *no; i++)
    if (!strcasecmp(v, no[i])) return 0;
  return -1;
}

int hp_env_bool(const char *name, const char *alias, int dflt) {
  const char *used;
  const char *v = hp_env(name, alias, &used);
  if (!v) return dflt;
  int b = hp_bool_word(v);
  if (b >= 0) return b;
  hp_warn("%s=%s is not a boolean (1/0, on/off, true/false, yes/no); using %d", used, v, dflt);
  return dflt;
}

long hp_env_long(const char *name, const char *alias, long dflt, long min, long max) {
  const char *used;
  const char *v = hp_env(name, alias, &used);
  if (!v) return dflt;
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  while (end && isspace((unsigned char)*end)) end++;
  if (errno || end == v || *end || x < min || x > max) {
    hp_warn("%s=%s is not a whole number from %ld to %ld; using %ld", used, v, min, max, dflt);
    return dflt;
  }
  return x;
}

int hp_env_choice(const char *name, const char *alias, const char *const *choices, int dflt_index) {
  const char *used;
  const char *v = hp_env(name, alias, &used);
  if (!v) return dflt_index;
  for (int i = 0; choices[i]; i++)
    if (!strcasecmp(v, choices[i])) return i;
  char list[512] = "";
  for (int i = 0; choices[i]; i++) {
    if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, choices[i], sizeof list - strlen(list) - 1);
  }
  hp_warn("%s=%s is not one of %s; using %s", used, v, list, choices[dflt_index]);
  return dflt_index;
}

/* A directory from the environment; one longer than the path limit cannot be opened at all, so it is
 * refused by name and `fallback` is used (never the empty path: files would land in "/"). */
static void copy_path(char *dst, size_t cap, const char *name, const char *value, const char *fallback,
                      const char *fallback_said) {
  if (strlen(value) < cap) {
    strcpy(dst, value);
    return;
  }
  hp_warn("%s is longer than the path limit (%zu bytes, at most %zu): %.64s...; using %s", name, strlen(value),
          cap - 1, value, fallback_said);
  snprintf(dst, cap, "%s", fallback);
}

void hp_config_read(void) {
  char cwd[sizeof hp_cfg.dir];
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, ".");
  const char *used;
  const char *dir = hp_env("HYPROF_DIR", "PROFILEDIR", &used);
  copy_path(hp_cfg.dir, sizeof hp_cfg.dir, used, dir ? dir : cwd, cwd, "the current directory");
  const char *raw = hp_env("HYPROF_RAW_DIR", NULL, NULL);
  copy_path(hp_cfg.raw_dir, sizeof hp_cfg.raw_dir, "HYPROF_RAW_DIR", raw ? raw : hp_cfg.dir, hp_cfg.dir,
            "the profile's directory");
  hp_cfg.callpath = hp_env_bool("HYPROF_CALLPATH", "TAU_CALLPATH", 1);
  hp_cfg.callpath_depth = (int)hp_env_long("HYPROF_CALLPATH_DEPTH", "TAU_CALLPATH_DEPTH", 100, 1, 100000);
  hp_cfg.resolve = hp_env_bool("HYPROF_RESOLVE", NULL, 1);
  hp_cfg.keep_raw = hp_env_bool("HYPROF_KEEP_RAW", NULL, 0);
  hp_cfg.verbose = hp_env_bool("HYPROF_VERBOSE", "TAU_VERBOSE", 0);
}

/* TAU's variables that a TAU job script commonly sets and hyprof does not implement, with what the
 * user gets instead. `flag`: the variable is a switch, so an "off" value asks for nothing hyprof
 * lacks and is not mentioned. The variables hyprof reads (PROFILEDIR, TAU_CALLPATH, TAU_SAMPLING,
 * TAU_EBS_*, TAU_THROTTLE*, TAU_SELECT_FILE, TAU_METRICS, TAU_PROFILE_FORMAT, TAU_TRACE,
 * TAU_TRACE_FORMAT, ...) are not here. */
static const struct {
  const char *name;
  int flag;
  const char *instead;
} unsupported[] = {
  {"TRACEDIR", 0, "the trace (TAU_TRACE=1) is written in the profile's directory, as traces.otf2"},
  {"TAU_SYNCHRONIZE_CLOCKS", 1, "a trace's processes share their host's clock; clocks of several hosts are not aligned"},
  {"TAU_TRACK_MESSAGE", 1, "no per-peer message events are written; message sizes per MPI call are"},
  {"TAU_CALLSITE", 1, "no call-site profiles are written; sampling shows where calls come from"},
  {"TAU_CALLSITE_DEPTH", 0, "no call-site profiles are written"},
  {"TAU_COMPENSATE", 1, "probe overhead is not subtracted from the times"},
  {"TAU_TRACK_HEAP", 1, "heap memory is not tracked"},
  {"TAU_TRACK_HEADROOM", 1, "memory headroom is not tracked"},
  {"TAU_TRACK_MEMORY_FOOTPRINT", 1, "the memory footprint is not tracked"},
  {"TAU_TRACK_MEMORY_LEAKS", 1, "memory leaks are not tracked"},
  {"TAU_TRACK_LOAD", 1, "the system load is not tracked"},
  {"TAU_TRACK_IO_PARAMS", 1, "I/O calls are not measured"},
  {"TAU_TRACK_SIGNALS", 1, "no backtrace is written when the program crashes; the profile is written on SIGINT and SIGTERM"},
  {"TAU_TRACK_MPI_T_PVARS", 1, "MPI_T performance variables are not read"},
  {"TAU_MEMDBG_PROTECT_ABOVE", 1, "memory debugging is not supported"},
  {"TAU_MEMDBG_PROTECT_BELOW", 1, "memory debugging is not supported"},
  {"TAU_MEMDBG_PROTECT_FREE", 1, "memory debugging is not supported"},
  {"TAU_PLUGINS", 0, "TAU plugins cannot be loaded"},
  {"TAU_PLUGINS_PATH", 0, "TAU plugins cannot be loaded"},
  {"TAU_PROFILE_PREFIX", 0, "profile files are always named profile.<node>.<context>.<thread>"},
  {"TAU_SET_NODE", 0, "the node is the MPI rank, or what the program sets with hyprof_set_node / TAU_PROFILE_SET_NODE"},
  {"TAU_EBS_KEEP_UNRESOLVED_ADDR", 1, "give `hyprof resolve --keep-addresses` instead"},
  {"TAU_EBS_RESOLUTION", 0, "samples are resolved to lines; `hyprof report --functions` sums them by function"},
  {"TAU_OPENMP_RUNTIME", 1, "OpenMP is measured through OMPT whenever the OpenMP runtime offers it"},
  {"TAU_OPENMP_RUNTIME_STATES", 1, "OpenMP is measured through OMPT, without runtime states"},
  {"TAU_OPENMP_RUNTIME_EVENTS", 1, "OpenMP is measured through OMPT whenever the OpenMP runtime offers it"},
};

static int is_off(const char *v) {
  static const char *const no[] = {"0", "off", "false", "no", "disable", "disabled"};
  for (size_t i = 0; i < sizeof no / sizeof *no; i++)
    if (!strcasecmp(v, no[i])) return 1;
  return 0;
}

void hp_config_warn_unsupported(void) {
  if (hp_rt.node != 0) return; /* the other ranks of an MPI job would say the same */
  for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++) {
    const char *v = getenv(unsupported[i].name);
    if (!v || !*v || (unsupported[i].flag && is_off(v))) continue;
    hp_warn("%s is not supported: %s (%s=%s ignored)", unsupported[i].name, unsupported[i].instead, unsupported[i].name, v);
  }
}
