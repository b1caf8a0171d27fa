/* TAU's selective instrumentation file (HYPROF_SELECT_FILE / TAU_SELECT_FILE) for compiler-instrumented
 * functions: which functions are measured. Read once, at the first instrumented call; each function is
 * decided once, by its symbol name, and the decision is kept in the address table (functions.c).
 *
 * Routine lists (BEGIN_EXCLUDE_LIST / BEGIN_INCLUDE_LIST) are applied here. File lists
 * (BEGIN_FILE_EXCLUDE_LIST / BEGIN_FILE_INCLUDE_LIST) need the source file of a function, which the
 * running program does not have without its debugging information: they are applied when compiling
 * (`hyprof config --instrument --select FILE`, gcc's -finstrument-functions-exclude-file-list) and
 * counted in the metadata here. */
#ifndef HP_SELECT_H
#define HP_SELECT_H

#include <stddef.h>

/* Read the file named by the environment, if any. A file that cannot be read or has a syntax error
 * gets one message naming it (and the line) and is not used at all: every function is measured. */
void hp_select_load(void);
/* 1 when the function with symbol `symbol` (NULL when unknown) is measured. */
int hp_select_wants(const char *symbol);
/* 1 when routine lists are in force, so functions need their names to be decided. */
int hp_select_needs_names(void);
/* Parse `text` (the file's contents) into the lists; on error writes "line N: what" to err and returns
 * 0. Exposed for the unit test program. */
int hp_select_parse(const char *text, char *err, size_t errcap);
/* TAU's wildcard match: '#' and '*' match any sequence of characters (also empty). */
int hp_select_match(const char *pattern, const char *name);
/* `*` (and `wild`, another character that matches as `*` does: '#' in a selective-instrumentation
 * file, '*' for none) matching any run of characters, everything else itself (HYPROF_FOLD too). */
int hp_glob_match(const char *pattern, const char *name, char wild);

#endif
