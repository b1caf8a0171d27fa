/* The sampling module: per-thread timers or counter overflows, the signal handler that turns each
 * into a sample of the running context, and the SAMPLING, MAPS and SAMPLES sections of the raw file.
 * The core drives it through this module table only (core/module.h); its entry in the build's
 * module list is native/modules.c. Everything else of the module is internal (sample_int.h). */
#ifndef HP_SAMPLE_H
#define HP_SAMPLE_H

#include "../core/module.h"

extern const hp_module hp_sample_module;

#endif
