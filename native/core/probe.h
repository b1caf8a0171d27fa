/* Probes for the API layers that call on behalf of the program (the Fortran module's functions,
 * TAU's Fortran names): they pass the CFA of their own frame, the program's stack pointer at the
 * call, so sample unwinding stops at the program's function exactly as for a direct hyprof_start. */
#ifndef HP_PROBE_H
#define HP_PROBE_H

#include <stdint.h>

#include "hyprof.h"

void hp_start_at(hyprof_event_t e, uintptr_t cfa);
/* phase != 0: the name is a phase (hyprof_phase_start). */
void hp_start_named_at(const char *name, int phase, uintptr_t cfa);
/* Non-zero while instrumentation is disabled (hyprof_disable_instrumentation). */
int hp_probes_off(void);

#endif
