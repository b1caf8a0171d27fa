/* The exec family (exec.c): measurements written before an image is replaced, and handed to the
 * new image when it resolves its own profile at exit. */
#ifndef HP_EXEC_H
#define HP_EXEC_H

/* The raw files of the images this process replaced by exec, one path per line. */
#define HP_EXEC_RAW_ENV "HYPROF_EXEC_RAW"

/* At start: keep the readable files HYPROF_EXEC_RAW names (naming the others), and clear it. */
void hp_exec_read_predecessors(void);
/* Those files, newline-separated, or NULL. */
const char *hp_exec_predecessors(void);

/* Writes `what`, then the files (`earlier`, newline-separated or NULL, then `raw`) and the command that
 * resolves them into the profile directory, as one line on stderr. Async-signal-safe: write(2) only. */
void hp_exec_say_resolve(const char *what, const char *earlier, const char *raw);

/* Whether the program an exec names will load the runtime (1: LD_PRELOAD of `envp` names it, or the
 * executable, or a script's interpreter, needs a libhyprof library, and `envp` does not turn
 * measurement or the resolve at exit off; 0: not; -1: there is no such
 * executable file, so the exec will fail). `target` is looked up on PATH
 * when `search` is set and it holds no '/'; relative to `dirfd` (execveat, fexecve: "" is the file
 * dirfd is open on). Async-signal-safe: system calls and stack buffers only. */
int hp_exec_target_measured(const char *target, int search, int dirfd, char *const envp[]);

#endif
