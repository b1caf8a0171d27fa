/* The OpenMP tool module: OMPT callbacks turned into timers and contexts, the OpenMP state of each
 * sample (blame metrics), and the OMPT section of the raw file. The OpenMP runtime starts it
 * (ompt_start_tool); the core drives it through this module table only (core/module.h); its entry in
 * the build's module list is native/modules.c. Everything else is internal (ompt_int.h). */
#ifndef HP_OMPT_H
#define HP_OMPT_H

#include "../core/module.h"

extern const hp_module hp_ompt_module;

#endif
