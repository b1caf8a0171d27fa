/* Configuration from the environment: hyprof's names, TAU's names accepted as aliases.
 * A malformed value is reported once on stderr, naming the variable and the value used instead. */
#ifndef HP_CONFIG_H
#define HP_CONFIG_H

#include <stddef.h>

typedef struct hp_config {
  char dir[4096];          /* HYPROF_DIR / PROFILEDIR: where the TAU profile goes */
  char raw_dir[4096];      /* HYPROF_RAW_DIR: where the raw file goes (default: dir) */
  int callpath;            /* HYPROF_CALLPATH / TAU_CALLPATH */
  int callpath_depth;      /* HYPROF_CALLPATH_DEPTH / TAU_CALLPATH_DEPTH */
  int resolve;             /* HYPROF_RESOLVE: turn the raw file into a profile at exit */
  int keep_raw;            /* HYPROF_KEEP_RAW: keep the raw file once it is resolved */
  int verbose;             /* HYPROF_VERBOSE */
} hp_config;

extern hp_config hp_cfg;

/* Read once at initialisation. */
void hp_config_read(void);

/* Name, once on stderr, each TAU variable of the environment that hyprof does not implement (a job
 * script written for TAU keeps running, and nothing it asks for is dropped without a word). Called
 * once the MPI rank is known: only rank 0 (or a process outside MPI) says it. */
void hp_config_warn_unsupported(void);

/* The value of `name`, else of `alias` (may be NULL), else NULL. *used receives the name found. */
const char *hp_env(const char *name, const char *alias, const char **used);
/* Booleans accept 1/0, on/off, true/false, yes/no (any case). */
/* A boolean word as the variables take it (1/on/true/yes/enable(d), 0/off/false/no/disable(d), any
 * case): 1, 0, or -1 when it is none of them. */
int hp_bool_word(const char *v);
int hp_env_bool(const char *name, const char *alias, int dflt);
/* Integers in [min, max]; anything else warns and gives dflt. */
long hp_env_long(const char *name, const char *alias, long dflt, long min, long max);
/* One of `choices` (NULL-terminated); anything else warns and gives choices[dflt_index].
 * Returns the index. */
int hp_env_choice(const char *name, const char *alias, const char *const *choices, int dflt_index);
/* Print one warning line on stderr: "hyprof: <message>". Not for signal handlers. */
void hp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
