/* Which threads of a Node.js process are measured (docs/node.md, "Threads").
 *
 * Node runs JavaScript on its main thread and on each worker_threads worker; beside them it starts
 * about ten helper threads (V8's platform workers for background compilation and GC, libuv's thread
 * pool, the inspector's and the signal watchdog's threads) that sleep most of the time. Measuring
 * them costs a sampling timer each, for threads whose profiles a user does not look for, so by
 * default (HYPROF_NODE_THREADS=js) a thread Node creates gets no thread state at its start: no
 * timer, no statistics, no profile, no thread number. It is measured from the moment it says it runs
 * JavaScript: `hyprof run`'s preload (src/events/thread-preload.cts) or the program's own import of
 * hyprof calls hyprof_register_thread on every thread that runs JavaScript, and a probe on any
 * thread creates its state as in every program. HYPROF_NODE_THREADS=all measures every thread from
 * its start, as in a program that is not Node.
 *
 * A process is Node when its executable exports Node's addon interface (napi_module_register). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "config.h"
#include "runtime.h"

enum { NODE_THREADS_JS = 0, NODE_THREADS_ALL = 1 };

static int known = -1;
static int node_threads = NODE_THREADS_JS;

int hp_node_process(void) {
  if (known < 0) known = dlsym(RTLD_DEFAULT, "napi_module_register") != NULL;
  return known;
}

int hp_node_process_known(void) { return known == 1; }

void hp_node_threads_read(void) {
  /* Read in Node processes only: the other processes of a run (a shell, a build tool) have nothing
   * to choose and would repeat the warning about a bad value. */
  if (!hp_node_process()) return;
  static const char *const choices[] = {"js", "all", NULL};
  node_threads = hp_env_choice("HYPROF_NODE_THREADS", NULL, choices, NODE_THREADS_JS);
}

const char *hp_node_threads_setting(void) {
  if (!hp_node_process()) return NULL;
  return node_threads == NODE_THREADS_ALL ? "all" : "js";
}

int hp_thread_measured_from_start(void) { return !hp_node_process() || node_threads == NODE_THREADS_ALL; }
