/* The modules of this build, in the order the core calls them: at every lifecycle event, and when a
 * raw file is written (their metadata, drop counters and sections in this order). To add a module,
 * add its table here (native/README.md, "How to add a module").
 *
 * Why a static list and not registration at start-up: the core may be started by whoever calls it
 * first — libhyprof.so's own constructor when preloaded or linked (core/intercept.c), a probe in
 * another library's constructor, the OpenMP runtime calling ompt_start_tool while it initialises,
 * the Node addon's first call — and constructors of different objects run in an order this library
 * does not choose. This table is plain data, complete as soon as the loader has relocated the
 * library, which is before any code of it can run; so hp_init (once, under pthread_once) always
 * finds every module, and every module's process_start runs before any thread_start, in every build
 * (libhyprof.so linked or preloaded, and the Node addon, which compiles this same file; with
 * libhyprof.so preloaded into Node the addon's copy of the core is never started: native/core/ext.h).
 */
#include "core/module.h"
#include "ompt/ompt.h"
#include "sample/sample.h"

const hp_module *const hp_modules[] = {
  &hp_sample_module,   /* SAMPLING, MAPS, SAMPLES */
  &hp_ompt_module,     /* OMPT */
  NULL,
};
