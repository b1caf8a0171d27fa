/* V8's own code log (`--log-code`, which `hyprof run -- node` asks for: src/run/run-node-jit.ts) is a
 * file V8 opens without close-on-exec: every program the measured one starts would inherit it. */
#ifndef HP_LOG_FD_H
#define HP_LOG_FD_H

#ifdef __cplusplus
extern "C" {
#endif

/* Mark close-on-exec each descriptor of this process open on a file `dir`/isolate-…-v8.log (V8's
 * log files in the run's raw directory). Returns how many were marked, or -1 when /proc/self/fd
 * cannot be read. */
int hp_v8_log_cloexec(const char *dir);

#ifdef __cplusplus
}
#endif

#endif
